import { Context, Schema } from "effect"
import { Model } from "effect/schema"

import { Id, Name, Text } from "./Fields.js"
import { Generated } from "./ModelFields.js"
import { Class } from "./Named.js"
import { Role } from "./Role.js"
import { StatusPageId } from "./StatusPage.js"
import { NullableTimestamp, Timestamp, UtcTimestamp } from "./Timestamps.js"

export const UserId = Id("UserId")
export type UserId = typeof UserId.Type

/** A member of the team as the API shows them: never the password hash. */
export class User extends Class<User>("User")({
  id: UserId,
  email: Schema.String,
  name: Schema.String,
  role: Role
}) {}

export class SignIn extends Class<SignIn>("SignIn")({
  email: Text(320),
  password: Text(1024)
}) {}

export class SignedIn extends Class<SignedIn>("SignedIn")({ user: User }) {}

export class Me extends Class<Me>("Me")({
  /** The signed-in user, or the user who created the API key (null for keys made by the CLI). */
  user: Schema.NullOr(User),
  authenticatedBy: Schema.Literals(["session", "apiKey"]),
  /** What the request may do: the user's role, or for a key the lower of its own and its creator's. */
  role: Role,
  /** For a key limited to some status pages, their ids; null when it may change every page. */
  pageIds: Schema.NullOr(Schema.Array(StatusPageId))
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
  role: Role,
  /** The status pages the key may change; null for every page. */
  pageIds: Schema.NullOr(Schema.Array(StatusPageId)),
  createdAt: Timestamp,
  lastUsedAt: NullableTimestamp,
  expiresAt: NullableTimestamp
}) {
  /** The JSON variant, named `ApiKey.json` in the OpenAPI document. */
  static override readonly json = super.json.annotate({ identifier: "ApiKey.json" })
}

export class CreateApiKey extends Class<CreateApiKey>("CreateApiKey")({
  name: Name(200),
  expiresAt: Schema.optionalKey(UtcTimestamp),
  /** At most the creator's role; the creator's role when left out. */
  role: Schema.optionalKey(Role),
  /** Limits the key's changes of status pages to these; every page when left out. */
  pageIds: Schema.optionalKey(Schema.Array(StatusPageId).check(Schema.isMaxLength(100)))
}) {}

/** The creation response: the only time the full `key` is shown. */
export class CreatedApiKey extends Class<CreatedApiKey>("CreatedApiKey")({
  ...ApiKey.json.fields,
  key: Schema.String
}) {}

/**
 * Who is making an authenticated admin request: its role is what it may do (for a key, the lower
 * of the key's and its creator's), `name` is how the audit log names it.
 */
export type Principal =
  | {
    readonly method: "session"
    readonly sessionId: string
    readonly userId: UserId
    readonly role: Role
    readonly name: string
  }
  | {
    readonly method: "apiKey"
    readonly apiKeyId: ApiKeyId
    readonly userId: UserId | null
    readonly role: Role
    readonly pageIds: ReadonlyArray<StatusPageId> | null
    readonly name: string
  }

export class CurrentPrincipal extends Context.Service<CurrentPrincipal, Principal>()("CurrentPrincipal") {}
