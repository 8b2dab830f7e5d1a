import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema } from "effect/http-api"

import { Me, SignedIn, SignIn } from "../domain/Auth.js"
import { BadRequest, Forbidden, NotFound, TooManyRequests, Unauthorized } from "../domain/Errors.js"
import { RequiredRole, SessionOnly } from "../domain/Role.js"
import {
  AcceptInvitation,
  ChangePassword,
  InspectInvitation,
  InvitationPreview,
  OwnSession,
  SessionPath
} from "../domain/Team.js"
import { endpointDocs, groupDocs } from "./Docs.js"
import { Authentication } from "./Security.js"

export class AuthApi extends HttpApiGroup.make("auth")
  .add(
    HttpApiEndpoint.post("signIn", "/signin", {
      payload: SignIn,
      success: SignedIn,
      error: [Unauthorized, TooManyRequests]
    })
      .annotateMerge(endpointDocs(
        "Sign in",
        "Takes `{ \"email\", \"password\" }` (e-mail case-insensitive), answers `{ \"user\": { id, email, name } }` " +
          "and sets the `__Host-session` cookie (`HttpOnly; Secure; SameSite=Lax; Path=/`, `Max-Age` = " +
          "`SESSION_MAX_AGE`). A new session token is issued at every sign-in, and a new `__Host-device` cookie " +
          "(`HttpOnly; Secure; SameSite=Strict; Path=/`, 90 days) that marks the browser as a known device of " +
          "that user. An unknown e-mail and a wrong password give the same **401** body.",
        "Throttled: 5 failed sign-ins per account and client address, 20 per client address or 50 per account " +
          "within a 15-minute window (longer after a full one) answer **429** `TooManyRequests` with " +
          "`Retry-After` (and `retryAfterSeconds` in the body) until the window closes, even for the right " +
          "password; so does a burst that overflows the queue of password checks. A browser sending a valid " +
          "`__Host-device` cookie of the account is counted on its own limit instead (5 failures per window), so " +
          "guessing from elsewhere does not lock it out. A 429 is the same whatever the password. No " +
          "authentication needed."
      ))
  )
  .add(
    HttpApiEndpoint.post("signOut", "/signout", { success: HttpApiSchema.NoContent, error: Forbidden })
      .annotateMerge(endpointDocs(
        "Sign out",
        "Deletes the session of the `__Host-session` cookie server-side and clears the cookie. Answers **204**, " +
          "also without a session. A cross-site request (`Sec-Fetch-Site: cross-site`, or an `Origin` that is " +
          "neither `PUBLIC_URL`'s nor the `Host` it was sent to) is **403** `Forbidden`."
      ))
  )
  .add(
    HttpApiEndpoint.get("me", "/me", { success: Me })
      .middleware(Authentication)
      .annotate(RequiredRole, "viewer")
      .annotateMerge(endpointDocs(
        "Who am I",
        "Answers `{ user, authenticatedBy }`: `authenticatedBy` is `session` or `apiKey`; `user` is the signed-in " +
          "administrator, or the creator of the API key (null for keys made with the CLI). Needs an API key or a " +
          "session, else 401."
      ))
  )
  .add(
    HttpApiEndpoint.put("changePassword", "/password", {
      payload: ChangePassword,
      success: HttpApiSchema.NoContent,
      error: [BadRequest, Forbidden, TooManyRequests]
    })
      .middleware(Authentication)
      .annotate(RequiredRole, "viewer")
      .annotate(SessionOnly, true)
      .annotateMerge(endpointDocs(
        "Change your own password",
        "Takes `{ currentPassword, newPassword }` (at least 12 characters) and answers **204**. Every other " +
          "session of yours ends, and device cookies issued before stop counting. A wrong `currentPassword` is " +
          "**403** `Forbidden` and counts as a failed sign-in (so it is throttled like one, **429**). Needs a " +
          "session: an API key is **403**, whoever made it."
      ))
  )
  .add(
    HttpApiEndpoint.get("listSessions", "/sessions", { success: Schema.Array(OwnSession) })
      .middleware(Authentication)
      .annotate(RequiredRole, "viewer")
      .annotate(SessionOnly, true)
      .annotateMerge(endpointDocs(
        "List your own sessions",
        "Your live sessions, newest first: when each started and was last used, when it ends, the client " +
          "address it signed in from, and which one is `current`. Needs a session: an API key is **403**."
      ))
  )
  .add(
    HttpApiEndpoint.delete("revokeSession", "/sessions/:id", {
      params: SessionPath,
      success: HttpApiSchema.NoContent,
      error: NotFound
    })
      .middleware(Authentication)
      .annotate(RequiredRole, "viewer")
      .annotate(SessionOnly, true)
      .annotateMerge(endpointDocs(
        "End one of your sessions",
        "Answers **204**; the session ends at once (it may be the current one). Another user's session, or an " +
          "unknown id, is 404. Needs a session: an API key is **403**."
      ))
  )
  .add(
    HttpApiEndpoint.post("inspectInvitation", "/invitations/inspect", {
      payload: InspectInvitation,
      success: InvitationPreview,
      error: [NotFound, TooManyRequests]
    })
      .annotateMerge(endpointDocs(
        "Read an invitation",
        "Takes `{ token }` from the invitation link and answers what it invites to: `email`, `role`, whether " +
          "the address has an account already, and when the link expires. An unknown, revoked, accepted or " +
          "expired token is 404. No authentication needed; 20 tries per client address per 15 minutes, then 429."
      ))
  )
  .add(
    HttpApiEndpoint.post("acceptInvitation", "/invitations/accept", {
      payload: AcceptInvitation,
      success: SignedIn,
      error: [BadRequest, NotFound, Unauthorized, TooManyRequests]
    })
      .annotateMerge(endpointDocs(
        "Accept an invitation",
        "Takes `{ token, name?, password }`. For an address without an account, `name` and a new `password` " +
          "(at least 12 characters) create it with the invitation's role. For an existing account, `password` is " +
          "its password: the account takes the invitation's role (enabled again if it was disabled). Either " +
          "way the answer signs in as `POST /signin` does (the same cookies). The link works once: an unknown, " +
          "revoked, accepted or expired token is 404. A wrong password of an existing account is 401 and counts as " +
          "a failed sign-in; the throttling of sign-in applies. No authentication needed."
      ))
  )
  .prefix("/api/v1/auth")
  .annotateMerge(groupDocs(
    "Sessions of administrators, for the dashboard.",
    "Every `/api/v1/admin/*` endpoint, and `GET /api/v1/auth/me`, needs an API key (`Authorization: Bearer " +
      "svc_…`) or the `__Host-session` cookie; without valid credentials it answers **401** `Unauthorized`. A " +
      "request that sends an `Authorization` header is judged by it alone. A cookie-authenticated request that " +
      "changes state from another site is refused with **403** `Forbidden`; bearer requests are not affected.",
    "A session ends after `SESSION_IDLE_TIMEOUT` (default 12 hours) without use or `SESSION_MAX_AGE` (default " +
      "7 days) after sign-in; only the SHA-256 of its 256-bit token is stored."
  ))
{}
