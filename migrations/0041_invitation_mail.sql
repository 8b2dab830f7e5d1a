-- The mail of an invitation to the team goes the durable way of confirmation mail: queued in
-- mail_deliveries with the invitation, sent at once, retried by the dispatcher while SMTP is
-- away and while its link still works. Its row keeps the link's token in clear (`verify_token`)
-- only until the mail is sent or given up; the invitation keeps only the token's SHA-256.
-- Revoking or replacing the invitation deletes its unsent mail with it.

alter table mail_deliveries drop constraint mail_deliveries_kind_check;

alter table mail_deliveries
  add constraint mail_deliveries_kind_check check (kind in ('notification', 'confirmation', 'invitation')),
  add column invitation_id text references invitations (id) on delete cascade,
  alter column subscriber_id drop not null;

-- Subscriber mail has its subscriber; an invitation's mail has its invitation and no subscriber.
alter table mail_deliveries add constraint mail_deliveries_recipient check (
  case kind
    when 'invitation' then invitation_id is not null and subscriber_id is null
    else subscriber_id is not null and invitation_id is null
  end);

create index mail_deliveries_invitation on mail_deliveries (invitation_id) where invitation_id is not null;
