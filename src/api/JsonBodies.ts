import { HttpApiMiddleware } from "effect/http-api"

import { UnsupportedMediaType } from "../domain/Errors.js"

/**
 * The API takes JSON only. Without this the platform would decode a form-encoded, plain-text
 * or multipart body into the same payload, so an HTML form on any site could post to sign-in
 * or subscribe. A request that may carry a body (POST, PUT, PATCH, DELETE) with another
 * `Content-Type`, or with a body and none, is refused with 415 before anything reads it. It
 * runs after routing, so it guards exactly the API's endpoints (not the status page's own
 * forms), whatever the URL's spelling. One-click unsubscribe goes without it: RFC 8058 prescribes its form body.
 */
export class JsonBodies extends HttpApiMiddleware.Service<JsonBodies>()("JsonBodies", {
  error: UnsupportedMediaType
}) {}
