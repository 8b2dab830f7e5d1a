/**
 * HTTP at the public room's edge. Encoding: a public response's bytes, gzip and ETag, made once
 * by the caches that keep them (SnapshotResponses, PublicPages, PublicUptime,
 * PublicResponseTimes), per snapshot or read, never per request; the state and its snapshot
 * (state/) know nothing of HTTP. Writing cached public responses (the snapshot's JSON and feeds,
 * the public pages, uptime): the same headers, conditional requests (304) and gzip negotiation
 * for the Effect handlers and for the request-listener fast path.
 */
import { createHash } from "node:crypto"
import type { IncomingHttpHeaders, IncomingMessage, OutgoingHttpHeaders, ServerResponse } from "node:http"
import { gzipSync } from "node:zlib"

import { Effect, Schema } from "effect"
import { HttpServerRequest, HttpServerResponse } from "effect/http"

/** A response ready to write: the bytes (and, unless they are few, the same gzipped), their content type and ETag. */
export interface EncodedResponse {
  readonly body: Uint8Array
  /** For clients that accept gzip; left out below `gzipFrom` bytes. */
  readonly gzipped?: Uint8Array | undefined
  readonly contentType: string
  readonly etag: string
}

/** Browsers and CDNs may reuse a public response this many seconds, then revalidate (304). */
export const publicMaxAge = 5

/**
 * Smaller bodies go as they are: gzip would save a few hundred bytes at most. Larger ones (the
 * summary during an incident, the feeds, the page) are gzipped once per build rather than once
 * per request; during an outage most readers get a tenth of the bytes.
 */
const gzipFrom = 1024

export const encodeResponse = (text: string, contentType: string): EncodedResponse => {
  const body = Buffer.from(text)
  return {
    body,
    gzipped: body.byteLength >= gzipFrom ? gzipSync(body) : undefined,
    contentType,
    etag: `"${createHash("sha1").update(body).digest("base64url")}"`
  }
}

export const encodedJson = <A, I>(schema: Schema.Codec<A, I>, value: A) =>
  encodeResponse(JSON.stringify(Schema.encodeSync(schema)(value)), "application/json")

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

/** The headers of a 304 for `response`, as sent gzipped or not. */
const validatorHeaders = (response: CachedResponse, gzip: boolean): Record<string, string> => ({
  ...response.headers,
  // The gzipped bytes are another representation of the same content: a weak validator (as
  // nginx gives them), which If-None-Match matches all the same.
  etag: gzip ? `W/${response.etag}` : response.etag,
  // A protected page's responses say they are the reader's own.
  "cache-control": response.headers?.["cache-control"] ?? cacheControl,
  // Even when this body is too small to gzip: the next one at this URL may be gzipped.
  vary: response.headers?.vary === undefined ? "Accept-Encoding" : `Accept-Encoding, ${response.headers.vary}`
})

/** The answer to a GET of `response`: 304 when the client has it, else the bytes, gzipped when both sides can. */
const answerFor = (request: IncomingHttpHeaders, response: CachedResponse) => {
  const gzip = response.gzipped !== undefined && acceptsGzip(request["accept-encoding"])
  const headers = validatorHeaders(response, gzip)
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

/** One representation of a cached response as the fast path writes it: its bytes and both answers' headers. */
interface NodeAnswer {
  readonly body: Uint8Array
  readonly ok: OutgoingHttpHeaders
  readonly notModified: OutgoingHttpHeaders
}

const nodeAnswer = (response: CachedResponse, gzip: boolean): NodeAnswer => {
  const notModified = validatorHeaders(response, gzip)
  const body = gzip ? response.gzipped! : response.body
  return {
    body,
    notModified,
    ok: {
      ...notModified,
      ...(gzip ? { "content-encoding": "gzip" } : {}),
      "content-type": response.contentType,
      "content-length": body.byteLength
    }
  }
}

/**
 * The fast path's answers per cached response, built at its first request and reused by every
 * other until the response is replaced (and collected): a page read thousands of times a second
 * then costs no header object, spread or string per request. Node only reads the headers passed
 * to `writeHead`.
 */
const nodeAnswers = new WeakMap<CachedResponse, { readonly plain: NodeAnswer; readonly gzipped?: NodeAnswer }>()

const nodeAnswersOf = (response: CachedResponse) => {
  let answers = nodeAnswers.get(response)
  if (answers === undefined) {
    answers = {
      plain: nodeAnswer(response, false),
      ...(response.gzipped === undefined ? {} : { gzipped: nodeAnswer(response, true) })
    }
    nodeAnswers.set(response, answers)
  }
  return answers
}

/**
 * Whether gzip is accepted, by `Accept-Encoding` value: browsers send a handful of values, so
 * each is parsed once. Bounded, since clients choose what they send.
 */
const gzipAccepted = new Map<string, boolean>()

const acceptsGzipCached = (acceptEncoding: string | undefined) => {
  if (acceptEncoding === undefined) return false
  let accepted = gzipAccepted.get(acceptEncoding)
  if (accepted === undefined) {
    accepted = acceptsGzip(acceptEncoding)
    if (gzipAccepted.size >= 64) gzipAccepted.clear()
    gzipAccepted.set(acceptEncoding, accepted)
  }
  return accepted
}

/** As `toHttpResponse`, the same status, headers and bytes, written straight to Node's response. */
export const writeNode = (request: IncomingMessage, out: ServerResponse, response: CachedResponse) => {
  const answers = nodeAnswersOf(response)
  const answer = answers.gzipped !== undefined && acceptsGzipCached(request.headers["accept-encoding"])
    ? answers.gzipped
    : answers.plain
  const ifNoneMatch = request.headers["if-none-match"]
  if (ifNoneMatch !== undefined && notModified(ifNoneMatch, response.etag)) {
    out.writeHead(304, answer.notModified)
    out.end()
  } else {
    out.writeHead(200, answer.ok)
    out.end(answer.body)
  }
}
