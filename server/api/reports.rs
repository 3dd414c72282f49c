//! `/v1/reports`: what the organization is owed, summed up (`reports_aging`: its open charges
//! by days overdue, by status and by debtor, as of the Brasília day).

use http::StatusCode;

use super::answers::reply::{Reply, answer};
use super::steps::caller::Caller;
use crate::generated::models::{AgingBucketBucket, AgingStatusStatus, reports_aging, response};
use crate::http::problem::ApiResult;
use dunning_app::reports::{self, Bucket, Open};

pub async fn aging(Caller(state, p): Caller) -> ApiResult<Reply> {
    let report = reports::aging(&state.db, &p.organization_id, dunning_store::today()).await?;
    let buckets = report.buckets.map(|(bucket, sum)| bucket_view(bucket, sum));
    let by_status = [
        status_view(AgingStatusStatus::Pending, report.pending),
        status_view(AgingStatusStatus::Overdue, report.overdue),
    ];
    let body = reports_aging::Response200 {
        data: response::AgingReport {
            as_of: report.as_of.into(),
            total: open(report.total),
            buckets: &buckets,
            by_status: &by_status,
            top_debtors: report
                .top_debtors
                .iter()
                .map(|d| response::AgingDebtor {
                    customer_id: &d.customer_id,
                    name: &d.name,
                    count: d.open.count,
                    amount: d.open.amount,
                })
                .collect(),
        },
    };
    Ok(answer(StatusCode::OK, &body, None))
}

fn open(sum: Open) -> response::AgingOpen {
    response::AgingOpen {
        count: sum.count,
        amount: sum.amount,
    }
}

fn bucket_view(bucket: Bucket, sum: Open) -> response::AgingBucket {
    let (min_days_overdue, max_days_overdue) = bucket.days();
    response::AgingBucket {
        bucket: match bucket {
            Bucket::NotDue => AgingBucketBucket::NotDue,
            Bucket::Days1To30 => AgingBucketBucket::V130,
            Bucket::Days31To60 => AgingBucketBucket::V3160,
            Bucket::Days61To90 => AgingBucketBucket::V6190,
            Bucket::Over90 => AgingBucketBucket::Over90,
        },
        min_days_overdue,
        max_days_overdue,
        count: sum.count,
        amount: sum.amount,
    }
}

fn status_view(status: AgingStatusStatus, sum: Open) -> response::AgingStatus {
    response::AgingStatus {
        status,
        count: sum.count,
        amount: sum.amount,
    }
}
