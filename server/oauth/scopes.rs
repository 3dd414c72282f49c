//! Each scope and each MCP toolset in plain Brazilian Portuguese, for the consent page, and
//! which scopes change data.

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
        "pix:read" => "Ver a chave Pix, a conexão com o PSP e os Pix recebidos",
        "pix:write" => {
            "Trocar a chave Pix que recebe os pagamentos e configurar o PSP (credenciais)"
        }
        _ => "Permissão desconhecida",
    }
}

/// What an MCP toolset (`openapi/v1.yaml`, `x-mcp.toolsets`) gives an assistant, said to the
/// person choosing what it loads.
pub fn describe_toolset(toolset: &str) -> &'static str {
    match toolset {
        "customers" => "Clientes e seus extratos",
        "charges" => "Cobranças: consultar, criar, alterar, cancelar",
        "collection" => "Agir na cobrança: pagamentos, avisos, negativação e protesto",
        "agreements" => "Acordos de parcelamento",
        "disputes" => "Contestações",
        "plans" => "Réguas de cobrança",
        "deliveries" => "Mensagens enviadas aos devedores",
        "webhooks" => "Webhooks",
        "exports" => "Exportações (CSV)",
        "events" => "Histórico de eventos",
        "pix" => "Pix: chave, códigos e recebimentos",
        _ => "Outras ferramentas",
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

    #[test]
    fn every_toolset_a_person_chooses_has_words() {
        for toolset in crate::generated::CATALOG
            .toolsets
            .iter()
            .filter(|t| !t.always)
        {
            assert_ne!(
                describe_toolset(toolset.name),
                "Outras ferramentas",
                "{}",
                toolset.name
            );
        }
    }
}
