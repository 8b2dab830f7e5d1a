/**
 * Answers a page of a list: its items as the body, and when more follow a
 * `Link: <…>; rel="next"` header (RFC 8288) naming the next page. The link is the request's own
 * path and query with the next `cursor`, relative, so it stays right behind a proxy that
 * rewrites the host.
 */
import { Effect } from "effect"
import { HttpEffect, HttpServerRequest, HttpServerResponse } from "effect/http"

import type { Page } from "../domain/Page.js"

export const nextPageLink = (requestUrl: string, cursor: string) => {
  const url = new URL(requestUrl, "http://link.invalid")
  url.searchParams.set("cursor", cursor)
  return `<${url.pathname}${url.search}>; rel="next"`
}

export const answerPage = <A>(page: Page<A>) =>
  Effect.gen(function*() {
    const next = page.next
    if (next !== undefined) {
      const request = yield* HttpServerRequest.HttpServerRequest
      const link = nextPageLink(request.url, next)
      yield* HttpEffect.appendPreResponseHandler((_request, response) =>
        Effect.succeed(HttpServerResponse.setHeader(response, "link", link))
      )
    }
    return page.items
  })
