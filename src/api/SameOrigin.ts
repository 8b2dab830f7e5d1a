/**
 * Cross-site request refusal for cookie-authenticated state changes (docs/api.md): a request
 * marked `Sec-Fetch-Site: cross-site`, or whose `Origin` is neither the public URL's origin
 * nor the host it was sent to, is refused. Reads (GET, HEAD, OPTIONS) are never refused.
 *
 * Here beside the API's declaration, whose security scheme states the rule (Security.ts), because
 * two folders apply it: http/ (the session cookie's sign-in and authentication) and public/ (the
 * status page's forms). Both import api/, and public/ must not import http/.
 */
import type { HttpServerRequest } from "effect/http"

const safeMethods = new Set(["GET", "HEAD", "OPTIONS"])

export const isCrossSiteChange = (request: HttpServerRequest.HttpServerRequest, publicUrl: string): boolean => {
  if (safeMethods.has(request.method)) return false
  if (request.headers["sec-fetch-site"] === "cross-site") return true
  const origin = request.headers["origin"]
  if (origin === undefined) return false
  try {
    const from = new URL(origin)
    return from.origin !== new URL(publicUrl).origin && from.host !== request.headers["host"]
  } catch {
    return true // "null" or garbage: an opaque origin is foreign
  }
}
