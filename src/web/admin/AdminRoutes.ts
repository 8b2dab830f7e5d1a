/**
 * Serves the dashboard beside the API: `/admin` and `/admin/invitation` (the HTML shell) and its
 * script and stylesheet.
 * Assets are addressed by content hash (`?v=`), so a matching request is cached for a year and
 * anything else revalidates by ETag; the shell itself always revalidates, so a deploy shows at
 * once. The shell's CSP allows only this origin's scripts, styles and API.
 */
import { Effect } from "effect"
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"

import { type AdminAsset, buildAdminBundle } from "./AdminBundle.js"
import { adminShell } from "./AdminShell.js"

const contentSecurityPolicy = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' https: data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'"
].join("; ")

const commonHeaders = {
  "x-content-type-options": "nosniff",
  "referrer-policy": "same-origin"
}

const serveAsset = (asset: AdminAsset) =>
  Effect.map(HttpServerRequest.HttpServerRequest, (request) => {
    const etag = `W/"${asset.hash}"` // weak: the gzipped and plain bytes share it
    const versioned = new URL(request.url, "http://localhost").searchParams.get("v") === asset.hash
    const headers = {
      ...commonHeaders,
      etag,
      vary: "Accept-Encoding",
      "cache-control": versioned ? "public, max-age=31536000, immutable" : "no-cache"
    }
    if (request.headers["if-none-match"] === etag) return HttpServerResponse.empty({ status: 304, headers })
    return /\bgzip\b/.test(request.headers["accept-encoding"] ?? "")
      ? HttpServerResponse.uint8Array(asset.gzipped, {
        contentType: asset.contentType,
        headers: { ...headers, "content-encoding": "gzip" }
      })
      : HttpServerResponse.uint8Array(asset.body, { contentType: asset.contentType, headers })
  })

export const AdminRoutes = HttpRouter.use((router) =>
  Effect.gen(function*() {
    const bundle = yield* buildAdminBundle.pipe(Effect.orDie)
    const shell = HttpServerResponse.text(adminShell(bundle), {
      contentType: "text/html; charset=utf-8",
      headers: {
        ...commonHeaders,
        "cache-control": "no-cache",
        "content-security-policy": contentSecurityPolicy,
        "x-frame-options": "DENY"
      }
    })
    yield* router.add("GET", "/admin", Effect.succeed(shell))
    // Invitation mails link here with the token in the fragment, which the browser never sends.
    yield* router.add("GET", "/admin/invitation", Effect.succeed(shell))
    yield* router.add("GET", "/admin/app.js", serveAsset(bundle.script))
    yield* router.add("GET", "/admin/app.css", serveAsset(bundle.stylesheet))
  })
)
