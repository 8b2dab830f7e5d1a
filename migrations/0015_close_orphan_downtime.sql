-- A monitor deleted before deletion ended its open down interval (Monitors.remove does now)
-- left that interval open, and uptime counted it as downtime for ever. Each such interval ends
-- at the monitor's last stored run (results and misses are kept RESULTS_RETENTION_DAYS): the
-- last moment it is known to have existed. With none left it ends where it started, since how
-- long the monitor was still down is no longer known. Closing it marks the rollups from its
-- start for recomputation (trigger monitor_downtime_dirty).
update monitor_downtime d
set ended_at = greatest(
  d.started_at,
  (select max(r.scheduled_at) from check_results r where r.monitor_id = d.monitor_id),
  (select max(m.scheduled_at) from missed_checks m where m.monitor_id = d.monitor_id))
where d.ended_at is null
  and not exists (select 1 from monitors m where m.id = d.monitor_id);
