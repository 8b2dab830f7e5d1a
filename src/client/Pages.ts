/**
 * Paging through a list of the API (docs/api.md, "Pagination and ordering"): each page's
 * `Link: <…>; rel="next"` header names the next one, until a page comes without it. For the
 * typed client, asked with `responseMode: "decoded-and-response"` so the header is at hand.
 */
import { Effect } from "effect"
import type { HttpClientResponse } from "effect/http"

/** The `cursor` of the `rel="next"` link of a `Link` header, if there is one. */
export const nextCursor = (link: string | undefined): string | undefined => {
  if (link === undefined) return undefined
  for (const part of link.split(",")) {
    const match = /^\s*<([^>]*)>\s*;(.*)$/.exec(part)
    if (match === null || !/(^|;)\s*rel\s*=\s*"?next"?\s*(;|$)/i.test(match[2]!)) continue
    const cursor = new URL(match[1]!, "http://link.invalid").searchParams.get("cursor")
    if (cursor !== null && cursor !== "") return cursor
  }
  return undefined
}

/** One page as the typed client answers it with `responseMode: "decoded-and-response"`. */
export type PageAnswer<A> = readonly [ReadonlyArray<A>, HttpClientResponse.HttpClientResponse]

/**
 * Every item of a list, page after page: `page` asks for the page its query names (`{}` for the
 * first, then `{ cursor }`), e.g. `(query) => client.components.list({ query: { ...query, limit:
 * 1000 }, responseMode: "decoded-and-response" })`.
 */
export const allPages = <A, E, R>(
  page: (query: { readonly cursor?: string }) => Effect.Effect<PageAnswer<A>, E, R>
): Effect.Effect<Array<A>, E, R> =>
  Effect.gen(function*() {
    const items: Array<A> = []
    let cursor: string | undefined = undefined
    do {
      const [batch, response]: PageAnswer<A> = yield* page(cursor === undefined ? {} : { cursor })
      items.push(...batch)
      cursor = nextCursor(response.headers["link"])
    } while (cursor !== undefined)
    return items
  })

/** A list endpoint of the typed client, asked for one page with its response. */
export type ListEndpoint<A, E, R> = (request: {
  readonly query: { readonly cursor?: string; readonly limit?: number }
  readonly responseMode: "decoded-and-response"
}) => Effect.Effect<PageAnswer<A>, E, R>

/**
 * Every item of a list endpoint of the typed client, in pages of `limit`:
 * `everyItem(client.components.list)`; for a list under a resource,
 * `everyItem((request) => client.webhooks.deliveries({ ...request, params: { id } }))`.
 */
export const everyItem = <A, E, R>(list: ListEndpoint<A, E, R>, limit = 1000): Effect.Effect<Array<A>, E, R> =>
  allPages((query) => list({ query: { ...query, limit }, responseMode: "decoded-and-response" }))
