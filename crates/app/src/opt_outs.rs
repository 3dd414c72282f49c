//! A debtor's opt-out of a channel (`channel_opt_outs`): the one-click unsubscribe link of an
//! e-mail adds `email`, and the engine then sends that customer nothing more on it.

use dunning_models::response::CustomerUnsubscribedData;
use dunning_store::customers::{self, CustomerFields};
use dunning_store::events::Actor;
use dunning_store::locks::{self, Table};
use dunning_store::{Connection, now_text};

use crate::{Refused, Result, events, refuse};

/// What an opt-out changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OptOut {
    /// The channel was added, with its `customer.unsubscribed` event.
    Added,
    /// The customer had opted out of it already: nothing was written.
    AlreadyOut,
}

/// Opt the customer out of `channel`, once: a second time writes nothing. The customer is
/// locked and read inside the transaction, so two clicks racing add the channel once.
pub async fn opt_out(
    tx: &mut Connection,
    org: &str,
    customer_id: &str,
    channel: &str,
    actor: &Actor,
) -> Result<OptOut> {
    locks::lock(tx, Table::Customers, org, customer_id).await?;
    let Some(customer) = customers::get_in(tx, org, customer_id).await? else {
        return refuse(Refused::Missing {
            what: "customer",
            id: customer_id.to_string(),
        });
    };
    if customer.channel_opt_outs.iter().any(|c| c == channel) {
        return Ok(OptOut::AlreadyOut);
    }
    let mut channel_opt_outs = customer.channel_opt_outs.clone();
    channel_opt_outs.push(channel.to_string());
    let fields = CustomerFields {
        name: customer.name,
        email: customer.email,
        phone: customer.phone,
        address: customer.address,
        channel_opt_outs,
        tags: customer.tags,
        notes: customer.notes,
    };
    if !customers::update(tx, org, customer_id, customer.version, &fields, &now_text()).await? {
        return refuse(Refused::Concurrent("customer"));
    }
    events::record(
        tx,
        org,
        "customer.unsubscribed",
        ("customer", customer_id),
        actor,
        &CustomerUnsubscribedData {
            channel,
            via: "unsubscribe_link",
        },
    )
    .await?;
    Ok(OptOut::Added)
}
