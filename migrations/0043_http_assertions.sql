-- JSON assertions of http monitors (src/domain/JsonAssertion.ts): a list of {path, op, value}
-- checked on the answer's body as JSON; null: none. The API validates each (path syntax, op,
-- value, pattern); the table only keeps the shape.
alter table monitors
  add column assertions jsonb check (assertions is null or jsonb_typeof(assertions) = 'array');
