/**
 * Writing snapshot responses: the same headers and conditional-request handling for the Effect
 * handlers and for the request-listener fast path.
 */
import { HttpServerResponse } from "@effect/platform"
import type { IncomingMessage, ServerResponse } from "node:http"
import type { EncodedResponse } from "../services/PublicSnapshot.js"
import { publicMaxAge } from "../services/PublicSnapshot.js"

const cacheControl = `public, max-age=${publicMaxAge}`

/** True when the client's `If-None-Match` names this response's ETag (or `*`). */
export const notModified = (ifNoneMatch: string | undefined, etag: string) =>
  ifNoneMatch !== undefined &&
  ifNoneMatch.split(",").some((tag) => {
    const candidate = tag.trim()
    return candidate === "*" || candidate === etag || candidate === `W/${etag}`
  })

export const toHttpResponse = (ifNoneMatch: string | undefined, response: EncodedResponse) =>
  notModified(ifNoneMatch, response.etag)
    ? HttpServerResponse.empty({ status: 304, headers: { etag: response.etag, "cache-control": cacheControl } })
    : HttpServerResponse.uint8Array(response.body, {
      contentType: response.contentType,
      headers: { etag: response.etag, "cache-control": cacheControl }
    })

export const writeNode = (request: IncomingMessage, out: ServerResponse, response: EncodedResponse) => {
  if (notModified(request.headers["if-none-match"], response.etag)) {
    out.writeHead(304, { etag: response.etag, "cache-control": cacheControl })
    out.end()
  } else {
    out.writeHead(200, {
      "content-type": response.contentType,
      "content-length": response.body.byteLength,
      etag: response.etag,
      "cache-control": cacheControl
    })
    out.end(response.body)
  }
}
