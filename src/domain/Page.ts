/**
 * Cursor pagination of lists (docs/api.md, "Pagination and ordering"). A list answers up to
 * `limit` items in its fixed order and, when more follow, a cursor that names the last one
 * answered: the next page starts right after it, so rows inserted or deleted meanwhile never
 * make a page repeat or skip one that was there all along.
 *
 * A cursor is opaque to clients; persistence/Keyset.ts makes and reads it.
 */
import { Schema } from "effect"

import { pattern } from "./Fields.js"

/** How many items a page holds: `fallback` when the client does not say, at most `max`. */
export interface PageBounds {
  readonly fallback: number
  readonly max: number
}

/** The bounds of the admin lists. */
export const adminPageBounds: PageBounds = { fallback: 100, max: 1000 }

/** What a cursor may look like on the wire: base64url, short. */
const CursorText = Schema.String.check(Schema.isMaxLength(1024), pattern(/^[A-Za-z0-9_-]+$/))

/** The `limit` and `cursor` query parameters of a paged list. */
export const pageQueryFields = (bounds: PageBounds) => ({
  limit: Schema.optionalKey(
    Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: bounds.max })).annotate({
      description: `Items per page, 1 to ${bounds.max}; ${bounds.fallback} when left out.`,
      default: bounds.fallback
    })
  ),
  cursor: Schema.optionalKey(
    CursorText.annotate({
      description: "Where the page starts: the cursor of the `Link: <…>; rel=\"next\"` header of the previous page. " +
        "Opaque; left out for the first page."
    })
  )
})

/** A page asked for: its size, and where it starts (after the item the cursor names). */
export interface PageRequest {
  readonly limit: number
  readonly cursor: string | undefined
}

export const pageRequest = (
  query: { readonly limit?: number | undefined; readonly cursor?: string | undefined },
  bounds: PageBounds
): PageRequest => ({ limit: query.limit ?? bounds.fallback, cursor: query.cursor })

/** A page answered: its items, and the cursor of the next page when there is one. */
export interface Page<A> {
  readonly items: ReadonlyArray<A>
  readonly next: string | undefined
}
