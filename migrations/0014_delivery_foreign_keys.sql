-- Deleting a webhook deletes its deliveries and their attempts, deleting a subscriber its mails.
-- Without an index that leads with the referencing column, each deleted row scanned the whole
-- table of the rows that reference it (a webhook with a long history took seconds). The
-- one-per-(event, recipient) constraints now lead with the recipient, which serves both that
-- cascade and the hand-over's `on conflict`, without a further index to maintain per insert.
alter table webhook_deliveries drop constraint webhook_deliveries_event_id_webhook_id_key;
alter table webhook_deliveries add constraint webhook_deliveries_webhook_event unique (webhook_id, event_id);
alter table mail_deliveries drop constraint mail_deliveries_event_id_subscriber_id_key;
alter table mail_deliveries add constraint mail_deliveries_subscriber_event unique (subscriber_id, event_id);
create index webhook_delivery_attempts_delivery on webhook_delivery_attempts (delivery_id);
