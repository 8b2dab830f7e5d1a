-- The public snapshot reads a bounded set of incidents (open ones, the newest resolved, the most
-- recently updated, those open in the bars' last 90 days): these indexes let it do so without
-- scanning the whole history.

create index incidents_open on incidents (created_at desc, id desc) where status <> 'resolved';
create index incidents_updated_at on incidents (updated_at desc, id desc);
create index incidents_resolved_at on incidents (resolved_at);
