import { Context, Schema } from "effect"
import { Model } from "effect/schema"

import { Id, Name, Text } from "./Fields.js"
import { Generated } from "./ModelFields.js"
import { Class } from "./Named.js"
import { NullableTimestamp, Timestamp, UtcTimestamp } from "./Timestamps.js"

export const UserId = Id("UserId")
export type UserId = typeof UserId.Type

/** An administrator as the API shows it: never the password hash. */
export class User extends Class<User>("User")({
  id: UserId,
  email: Schema.String,
  name: Schema.String
}) {}

export class SignIn extends Class<SignIn>("SignIn")({
  email: Text(320),
  password: Text(1024)
}) {}

export class SignedIn extends Class<SignedIn>("SignedIn")({ user: User }) {}

export class Me extends Class<Me>("Me")({
  /** The signed-in user, or the user who created the API key (null for keys made by the CLI). */
  user: Schema.NullOr(User),
  authenticatedBy: Schema.Literals(["session", "apiKey"])
}) {}

export const ApiKeyId = Id("ApiKeyId")
export type ApiKeyId = typeof ApiKeyId.Type

/** `svc_` followed by 32 characters of [A-Za-z0-9] (specification, "API key rules"). */
export const apiKeyPattern = /^svc_[A-Za-z0-9]{32}$/
export const apiKeyPrefixLength = 12

export class ApiKey extends Model.Class<ApiKey>("ApiKey")({
  id: Generated(ApiKeyId),
  name: Schema.String,
  prefix: Schema.String,
  createdAt: Timestamp,
  lastUsedAt: NullableTimestamp,
  expiresAt: NullableTimestamp
}) {
  /** The JSON variant, named `ApiKey.json` in the OpenAPI document. */
  static override readonly json = super.json.annotate({ identifier: "ApiKey.json" })
}

export class CreateApiKey extends Class<CreateApiKey>("CreateApiKey")({
  name: Name(200),
  expiresAt: Schema.optionalKey(UtcTimestamp)
}) {}

/** The creation response: the only time the full `key` is shown. */
export class CreatedApiKey extends Class<CreatedApiKey>("CreatedApiKey")({
  ...ApiKey.json.fields,
  key: Schema.String
}) {}

/** Who is making an authenticated admin request. */
export type Principal =
  | { readonly method: "session"; readonly sessionId: string; readonly userId: UserId }
  | { readonly method: "apiKey"; readonly apiKeyId: ApiKeyId; readonly userId: UserId | null }

export class CurrentPrincipal extends Context.Service<CurrentPrincipal, Principal>()("CurrentPrincipal") {}
