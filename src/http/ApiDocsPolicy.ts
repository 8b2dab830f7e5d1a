/**
 * The API reference at /docs is the platform's Swagger UI page: one HTML document with Swagger
 * UI's script and stylesheet inline and nothing loaded from elsewhere. It gets a
 * Content-Security-Policy allowing exactly that inline script and stylesheet (by hash), images
 * from the page itself, requests to this origin ("Try it out"), and no framing
 * (`frame-ancestors 'none'`, and `X-Frame-Options: DENY` for older browsers).
 *
 * The page is recognised by its answer, not its URL: an HTML response that carries no policy of
 * its own (the status page and the dashboard set theirs). The router answers `/docs` under
 * other spellings too (`/Docs`, `/docs/`), and each must carry the policy.
 */
import { createHash } from "node:crypto"

import { Effect } from "effect"
import { HttpEffect, HttpMiddleware, HttpServerResponse } from "effect/http"

const sha256 = (text: string) => `'sha256-${createHash("sha256").update(text, "utf8").digest("base64")}'`

/** The contents of the page's inline elements `<tag>…</tag>` without attributes (data blocks run nothing). */
const inlineContents = (html: string, tag: "script" | "style") =>
  Array.from(html.matchAll(new RegExp(`<${tag}>([\\s\\S]*?)</${tag}>`, "g")), (match) => match[1]!)

const policyFor = (html: string) =>
  [
    "default-src 'none'",
    `script-src ${inlineContents(html, "script").map(sha256).join(" ") || "'none'"}`,
    `style-src ${inlineContents(html, "style").map(sha256).join(" ") || "'none'"}`,
    "img-src 'self' data:",
    "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'"
  ].join("; ")

/** The page's bytes are built once, so its policy is computed once (the script is about 1.5 MB). */
const policies = new WeakMap<Uint8Array, string>()

const withPolicy = (response: HttpServerResponse.HttpServerResponse) => {
  const { body, headers } = response
  if (
    body._tag !== "Uint8Array" || !(body.contentType ?? "").startsWith("text/html") ||
    headers["content-security-policy"] !== undefined || headers["content-encoding"] !== undefined
  ) return response
  let policy = policies.get(body.body)
  if (policy === undefined) {
    policy = policyFor(new TextDecoder().decode(body.body))
    policies.set(body.body, policy)
  }
  return HttpServerResponse.setHeaders(response, {
    "content-security-policy": policy,
    "x-frame-options": "DENY",
    "x-content-type-options": "nosniff"
  })
}

/** A pre-response handler: the platform sends the app's response before an outer middleware could change it. */
export const apiDocsPolicy = HttpMiddleware.make((app) =>
  Effect.andThen(HttpEffect.appendPreResponseHandler((_request, response) => Effect.succeed(withPolicy(response))), app)
)
