/**
 * What the two durable delivery queues, `webhook_deliveries` and `mail_deliveries`, share in the
 * database (the service side is services/notifications/dispatcher/DeliveryQueue.ts). A row waits
 * `pending` until its `next_attempt_at`; a claim pushes that time ahead as a lease, so
 * concurrent dispatchers skip the row and one that dies mid-attempt only delays it; an attempt
 * leaves it done, pending until its retry, or failed for good. Each repository keeps its own
 * statements (what a claim reads with the row, what a record writes beside it), built from these.
 */
import { Duration } from "effect"
import type { SqlClient } from "effect/sql"

/** The tables of the delivery queues. */
export type DeliveryTable = "webhook_deliveries" | "mail_deliveries"

/**
 * A row waiting for a retry: pending after at least one failed attempt. What the retry-backlog
 * metric counts and the overview shows as "retrying".
 */
export const awaitingRetry = (sql: SqlClient.SqlClient) => sql.literal("status = 'pending' and attempts > 0")

/** When a claim taken at `now` for `lease` runs out: the due time the claim gives its rows. */
export const leaseEnd = (now: Date, lease: Duration.Duration) => new Date(now.getTime() + Duration.toMillis(lease))

/**
 * The ids of up to `limit` pending rows of `table` due at `now`, oldest first, locked for the
 * claim that pushes them ahead: SKIP LOCKED, so concurrent dispatchers claim different rows and
 * never wait for one another.
 */
export const dueIds = (sql: SqlClient.SqlClient, table: DeliveryTable, now: Date, limit: number) =>
  sql`
    select id from ${sql(table)}
    where status = 'pending' and next_attempt_at <= ${now}
    order by next_attempt_at, sequence
    limit ${limit}
    for update skip locked`

/** A row's status after an attempt: `done` on success, else pending until its retry, or failed for good without one. */
export const statusAfter = <Done extends string>(done: Done, success: boolean, retryAt: Date | null) =>
  success ? done : retryAt !== null ? "pending" as const : "failed" as const

/** Error texts are kept short in the database. */
export const clipError = (error: string | null) => (error === null ? null : error.slice(0, 1000))
