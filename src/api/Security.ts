import { HttpApiMiddleware, HttpApiSecurity } from "@effect/platform"
import { Schema } from "effect"
import { CurrentPrincipal } from "../domain/Auth.js"
import { Forbidden, ServiceUnavailable, Unauthorized } from "../domain/Errors.js"

export const sessionCookie = HttpApiSecurity.apiKey({ in: "cookie", key: "__Host-session" })

/**
 * Every admin endpoint needs an API key (`Authorization: Bearer svc_…`) or the session
 * cookie. Cookie-authenticated state changes from another site are refused with 403.
 */
export class Authentication extends HttpApiMiddleware.Tag<Authentication>()("Authentication", {
  failure: Schema.Union(Unauthorized, Forbidden, ServiceUnavailable),
  provides: CurrentPrincipal,
  security: {
    apiKey: HttpApiSecurity.bearer,
    session: sessionCookie
  }
}) {}
