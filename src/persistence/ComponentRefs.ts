import { Effect } from "effect"

import type { ComponentId } from "../domain/Component.js"
import { BadRequest } from "../domain/Errors.js"
import { orUnavailable } from "./DatabaseErrors.js"
import { RetryingSqlClient } from "./RetryingSqlClient.js"

/**
 * Components in the order every writer of several locks them: by id, each once. Two writers
 * that took them in different orders could each hold one the other waits for (a deadlock).
 */
export const inLockOrder = (ids: ReadonlyArray<ComponentId>): Array<ComponentId> => [...new Set(ids)].sort()

/**
 * Checks the `componentIds` of an incident or maintenance body. An unknown id is a 400 (the body
 * is wrong; 404 is kept for the resource in the path) with an issue at each place it appears, as
 * a schema error would name it. Locks the rows so that a concurrent delete cannot slip in before
 * the links are written. Returns the ids without duplicates.
 */
export const existingComponents = (ids: ReadonlyArray<ComponentId>) =>
  Effect.gen(function*() {
    const unique = [...new Set(ids)]
    if (unique.length === 0) return unique
    const sql = yield* RetryingSqlClient
    const rows = yield* orUnavailable(
      sql<{ id: ComponentId }>`select id from components where id = any(${unique}::text[]) order by id for share`
    )
    const found = new Set(rows.map((row) => row.id))
    const missing = unique.filter((id) => !found.has(id))
    if (missing.length === 0) return unique
    const issues = ids.flatMap((id, index) =>
      found.has(id) ? [] : [{ path: ["componentIds", index], message: `unknown component ${JSON.stringify(id)}` }]
    )
    return yield* Effect.fail(
      new BadRequest({ message: `Unknown componentIds: ${missing.map((id) => JSON.stringify(id)).join(", ")}`, issues })
    )
  })
