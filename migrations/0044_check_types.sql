-- The fields of the icmp, grpc, database and broker check types (0042 allows the types).
-- `password`: what postgres, mysql, redis, mqtt and amqp monitors log in with; the API never
-- answers it (it shows "********"), the probes get it with the job. `grpc_service`: the service a
-- grpc monitor asks the health of (null: the server's). `ping_count`: echo requests per icmp check.

alter table monitors
  add column password text check (password is null or length(password) <= 1024),
  add column grpc_service text check (grpc_service is null or length(grpc_service) <= 256),
  add column ping_count integer check (ping_count between 1 and 10),
  add constraint monitors_check_type_fields check (
    (password is null or type in ('postgres', 'mysql', 'redis', 'mqtt', 'amqp'))
    and (grpc_service is null or type = 'grpc')
    and ((ping_count is not null) = (type = 'icmp'))
  );
