import { Model } from "@effect/sql"
import { Schema } from "effect"

import { ComponentId } from "./Component.js"
import { Text } from "./Fields.js"

export const SubscriberId = Text(1000).pipe(Schema.brand("SubscriberId"))
export type SubscriberId = typeof SubscriberId.Type

/**
 * An e-mail address as subscribers give it: trimmed and lower-cased, at most 254 characters,
 * one `@`, a dotted domain and no whitespace or control characters (it goes into mail headers).
 */
export const EmailAddress = Schema.Trim.pipe(
  Schema.compose(Schema.Lowercase),
  Schema.compose(
    Schema.String.pipe(
      Schema.maxLength(254, { message: () => "must be at most 254 characters" }),
      Schema.pattern(
        /^[^\s@<>()[\]\\,;:"\u0000-\u001f\u007f]+@[^\s@<>()[\]\\,;:"\u0000-\u001f\u007f]+\.[^\s@<>()[\]\\,;:"\u0000-\u001f\u007f]+$/,
        {
          message: () => "must be an e-mail address"
        }
      )
    )
  ),
  Schema.annotations({ identifier: "EmailAddress", description: "An e-mail address" })
)

/** A subscriber as administrators see it: tokens are never listed. */
export class Subscriber extends Model.Class<Subscriber>("Subscriber")({
  id: Model.Generated(SubscriberId),
  email: Schema.String,
  verified: Schema.Boolean,
  createdAt: Model.DateTimeInsertFromDate,
  verifiedAt: Model.Field({
    select: Schema.NullOr(Schema.DateTimeUtcFromDate),
    json: Schema.NullOr(Schema.DateTimeUtc)
  }),
  /** The components the subscriber is mailed about; null: every component. */
  componentIds: Schema.NullOr(Schema.Array(Schema.String))
}) {}

/** Tokens are URL-safe base64 of random bytes; anything else cannot match one. */
const Token = Text(200)
/** A string that could be a token; the HTML forms, which take any text, check with it before a query. */
export const isToken = Schema.is(Token)

/**
 * The public components a subscriber chooses (at most 100); absent, null or empty: every
 * component, as the page's form with no box ticked.
 */
export const SubscribedComponents = Schema.NullOr(Schema.Array(ComponentId).pipe(Schema.maxItems(100)))

export class Subscribe extends Schema.Class<Subscribe>("Subscribe")({
  email: EmailAddress,
  componentIds: Schema.optional(SubscribedComponents)
}) {}

/** What the preferences page shows a subscriber: the address and the components chosen (null: all). */
export interface Preferences {
  readonly email: string
  readonly componentIds: ReadonlyArray<string> | null
}

export class SubscribeAccepted extends Schema.Class<SubscribeAccepted>("SubscribeAccepted")({
  message: Schema.String
}) {}

export class Verified extends Schema.Class<Verified>("Verified")({
  verified: Schema.Literal(true),
  email: Schema.String
}) {}

export class Unsubscribe extends Schema.Class<Unsubscribe>("Unsubscribe")({
  email: EmailAddress,
  token: Token
}) {}

export class Unsubscribed extends Schema.Class<Unsubscribed>("Unsubscribed")({
  unsubscribed: Schema.Literal(true)
}) {}

export const VerifyPath = Schema.Struct({ token: Token })
export const OneClickParams = Schema.Struct({ email: EmailAddress, token: Token })

/**
 * `text` with every e-mail address replaced: a mail server's refusal quotes the recipient
 * (`550 5.1.1 <erin@example.test>: Recipient address rejected`), and such texts go to the log.
 */
export const withoutEmailAddresses = (text: string) =>
  text.replace(/[^\s<>"'(),;:[\]]+@[^\s<>"'(),;:[\]]+/g, "<address>")
