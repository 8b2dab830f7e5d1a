-- Indexes behind the foreign keys of webhook deliveries and attempts: deleting a webhook
-- deletes its deliveries and their attempts, and without these each deleted row scanned the
-- whole table of the rows that reference it (a webhook with a long history took seconds).
create index webhook_deliveries_webhook on webhook_deliveries (webhook_id);
create index webhook_delivery_attempts_delivery on webhook_delivery_attempts (delivery_id);
