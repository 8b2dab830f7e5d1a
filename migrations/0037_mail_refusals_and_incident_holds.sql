-- Three small records (issue 37).
--
-- 1. The mail kept without SMTP_URL says which confirmation link it carries (the hash the
--    subscriber keeps), so housekeeping deletes it once that link is used, replaced or expired,
--    and anything 48 hours old: anonymous subscription requests no longer grow the table without
--    bound, nor keep unconfirmed addresses.
alter table mail_outbox_log add column verify_token_hash text;
create index mail_outbox_log_created on mail_outbox_log (created_at);

-- 2. The SMTP reply code that refused a mail's last attempt (null: sent, or no reply, such as a timeout). A
--    permanent refusal (5xx) fails the mail for good at once, and this says so.
alter table mail_deliveries add column last_reply_code integer;

-- 3. The components whose status an incident set (`componentStatuses`): it holds them while it is
--    open and names them, and resolving another incident with `restoreComponents` leaves them
--    alone (IncidentImpact.hold, in the transaction that set the status).
create table incident_impacts (
  incident_id text not null references incidents (id) on delete cascade,
  component_id text not null references components (id) on delete cascade,
  primary key (incident_id, component_id)
);

create index incident_impacts_component on incident_impacts (component_id);
