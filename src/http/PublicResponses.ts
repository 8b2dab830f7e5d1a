/**
 * Writing cached public responses (the snapshot's JSON and feeds, the public pages, uptime): the
 * same headers, conditional requests (304) and gzip negotiation for the Effect handlers and for
 * the request-listener fast path.
 */
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from "node:http"

import { HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Effect } from "effect"

import type { EncodedResponse } from "../services/public/PublicSnapshot.js"
import { publicMaxAge } from "../services/public/PublicSnapshot.js"

/** A cached response; a page also carries headers of its own. */
export interface CachedResponse extends EncodedResponse {
  readonly headers?: Readonly<Record<string, string>>
}

const cacheControl = `public, max-age=${publicMaxAge}`

/** True when the client's `If-None-Match` names this response's ETag (or `*`). */
export const notModified = (ifNoneMatch: string | undefined, etag: string) =>
  ifNoneMatch !== undefined &&
  ifNoneMatch.split(",").some((tag) => {
    const candidate = tag.trim()
    return candidate === "*" || candidate === etag || candidate === `W/${etag}`
  })

/** Whether `Accept-Encoding` allows gzip: named (or `*`) with a quality above 0. */
export const acceptsGzip = (acceptEncoding: string | undefined) => {
  const qualities = new Map(
    (acceptEncoding ?? "").split(",").map((entry) => {
      const [coding = "", ...parameters] = entry.split(";").map((part) => part.trim().toLowerCase())
      const q = parameters.find((parameter) => parameter.startsWith("q="))
      return [coding, q === undefined ? 1 : Number(q.slice(2))] as const
    })
  )
  const quality = qualities.get("gzip") ?? qualities.get("x-gzip") ?? qualities.get("*") ?? 0
  return quality > 0
}

/** The answer to a GET of `response`: 304 when the client has it, else the bytes, gzipped when both sides can. */
const answerFor = (request: IncomingHttpHeaders, response: CachedResponse) => {
  const gzip = response.gzipped !== undefined && acceptsGzip(request["accept-encoding"])
  const headers: Record<string, string> = {
    ...response.headers,
    // The gzipped bytes are another representation of the same content: a weak validator (as
    // nginx gives them), which If-None-Match matches all the same.
    etag: gzip ? `W/${response.etag}` : response.etag,
    "cache-control": cacheControl,
    // Even when this body is too small to gzip: the next one at this URL may be gzipped.
    vary: "Accept-Encoding"
  }
  if (notModified(request["if-none-match"], response.etag)) return { status: 304, headers, body: undefined }
  if (gzip) headers["content-encoding"] = "gzip"
  return { status: 200, headers, body: gzip ? response.gzipped! : response.body }
}

export const toHttpResponse = (response: CachedResponse) =>
  Effect.map(HttpServerRequest.HttpServerRequest, (request) => {
    const { body, headers, status } = answerFor(request.headers, response)
    return body === undefined
      ? HttpServerResponse.empty({ status, headers })
      : HttpServerResponse.uint8Array(body, { status, contentType: response.contentType, headers })
  })

export const writeNode = (request: IncomingMessage, out: ServerResponse, response: CachedResponse) => {
  const { body, headers, status } = answerFor(request.headers, response)
  if (body === undefined) {
    out.writeHead(status, headers)
    out.end()
  } else {
    out.writeHead(status, { ...headers, "content-type": response.contentType, "content-length": body.byteLength })
    out.end(body)
  }
}
