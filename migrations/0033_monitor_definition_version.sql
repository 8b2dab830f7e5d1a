-- What the scheduler takes as a monitor's version (MonitorsRepo.versions): it re-reads a monitor
-- whose version changed. It was the row's xmin, which every write changes, state transitions
-- included, so at thousands of monitors each transition made the next reload (every 5 s) read
-- every monitor's version again. The version is now `updated_at`, and this trigger keeps it
-- true for writes behind the API's back too: an update that changes anything but the state sets
-- it to the clock; one that changes only the state (ingest's transitions) leaves it as it was.
create function monitors_definition_changed() returns trigger language plpgsql as $$
begin
  if (to_jsonb(new) - array['state', 'state_changed_at', 'updated_at']) is distinct from
     (to_jsonb(old) - array['state', 'state_changed_at', 'updated_at']) then
    new.updated_at := clock_timestamp();
  end if;
  return new;
end
$$;

create trigger monitors_definition_changed before update on monitors
  for each row execute function monitors_definition_changed();
