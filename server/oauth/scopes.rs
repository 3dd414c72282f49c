//! Each scope in plain Brazilian Portuguese, for the consent page, and which ones change data.

/// What a scope lets an application do, said to the person who grants it.
pub fn describe(scope: &str) -> &'static str {
    match scope {
        "customers:read" => "Ver seus clientes (nomes, CPF/CNPJ, contatos)",
        "customers:write" => "Cadastrar, alterar e excluir clientes",
        "charges:read" => "Ver cobranças, valores e vencimentos",
        "charges:write" => "Criar, alterar e cancelar cobranças e registrar pagamentos",
        "charges:collect" => "Cobrar devedores: enviar avisos, negativar e protestar",
        "collection_plans:read" => "Ver as réguas de cobrança",
        "collection_plans:write" => "Criar, alterar e excluir réguas de cobrança",
        "deliveries:read" => "Ver as mensagens enviadas aos devedores",
        "deliveries:write" => "Enviar e reenviar mensagens aos devedores",
        "agreements:read" => "Ver acordos de parcelamento",
        "agreements:write" => "Fazer e cancelar acordos de parcelamento",
        "disputes:read" => "Ver contestações de devedores",
        "disputes:write" => "Abrir e resolver contestações",
        "webhooks:read" => "Ver webhooks (endereços e segredos)",
        "webhooks:write" => "Criar, alterar e excluir webhooks",
        "exports:read" => "Baixar exportações (CSV)",
        "exports:write" => "Gerar exportações de dados",
        "events:read" => "Ver o histórico de eventos da organização",
        "pix:read" => "Ver a conexão com o PSP do Pix e os Pix recebidos",
        "pix:write" => "Configurar e remover a conexão com o PSP do Pix (credenciais)",
        _ => "Permissão desconhecida",
    }
}

/// Whether granting the scope lets the application change or delete data, or act on
/// debtors (the consent page marks these).
pub fn destructive(scope: &str) -> bool {
    !scope.ends_with(":read")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_scope_has_words_and_only_reads_are_harmless() {
        for scope in crate::auth::roles::ALL_SCOPES {
            assert_ne!(describe(scope), "Permissão desconhecida", "{scope}");
        }
        assert!(destructive("charges:collect") && destructive("customers:write"));
        assert!(!destructive("charges:read"));
    }
}
