-- Migration 23: deliveries claimed by channel, a batch at a time
--
-- The collection worker now sends each channel's due deliveries at that channel's own pace
-- (an SMTP relay takes hundreds a second, a Twilio number one), so it claims them channel by
-- channel, up to a batch at once (`deliveries::claim_due`). With only `deliveries_work`
-- (status, next_attempt_at) a claim for SMS would walk every due e-mail of a burst to find
-- none; this index holds the queued rows by channel, in the order they are claimed.
CREATE INDEX deliveries_channel_due ON deliveries (channel, next_attempt_at, id) WHERE status = 'queued';
