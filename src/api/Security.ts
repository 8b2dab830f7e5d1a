import { HttpApiMiddleware, HttpApiSecurity, OpenApi } from "effect/http-api"

import { CurrentPrincipal } from "../domain/Auth.js"
import { Forbidden, ServiceUnavailable, Unauthorized } from "../domain/Errors.js"

export const sessionCookie = HttpApiSecurity.apiKey({ in: "cookie", key: "__Host-session" }).pipe(
  HttpApiSecurity.annotate(
    OpenApi.Description,
    "The session cookie set by `POST /api/v1/auth/signin`. A cookie-authenticated request that changes state " +
      "from another site (`Sec-Fetch-Site: cross-site`, or a foreign `Origin`) is refused with 403."
  )
)

// `HttpApiSecurity.bearer` names its scheme `Bearer`; spelled `bearer` the document keeps its scheme as it was
// (schemes are case-insensitive, RFC 9110, so requests are read the same).
const bearerKey = HttpApiSecurity.http({ scheme: "bearer" }).pipe(
  HttpApiSecurity.annotate(
    OpenApi.Description,
    "An API key, `Authorization: Bearer svc_…` (see `POST /api/v1/admin/api-keys`). A request with an " +
      "`Authorization` header is judged by it alone."
  )
)

/**
 * Every admin endpoint needs an API key (`Authorization: Bearer svc_…`) or the session
 * cookie. Cookie-authenticated state changes from another site are refused with 403.
 */
export class Authentication extends HttpApiMiddleware.Service<Authentication, {
  provides: CurrentPrincipal
}>()("Authentication", {
  error: [Unauthorized, Forbidden, ServiceUnavailable],
  security: {
    apiKey: bearerKey,
    session: sessionCookie
  }
}) {}
