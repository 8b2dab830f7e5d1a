import { Schema, SchemaTransformation } from "effect"
import { Model } from "effect/schema"

import { ComponentId } from "./Component.js"
import { pattern, Text } from "./Fields.js"
import { Locale } from "./Locale.js"
import { Generated } from "./ModelFields.js"
import { Class } from "./Named.js"
import { Slug } from "./StatusPage.js"

export const SubscriberId = Text(1000).pipe(Schema.brand("SubscriberId"))
export type SubscriberId = typeof SubscriberId.Type

/** How an e-mail address is named and described in the OpenAPI document. */
const emailAddressDoc = { identifier: "EmailAddress", description: "An e-mail address" }

/**
 * An e-mail address as subscribers give it: trimmed and lower-cased, at most 254 characters,
 * one `@`, a dotted domain and no whitespace or control characters (it goes into mail headers).
 */
export const EmailAddress = Schema.String.annotate(emailAddressDoc).pipe(
  Schema.decodeTo(Schema.Trimmed, SchemaTransformation.trim()),
  Schema.decodeTo(Schema.String.check(Schema.isLowercased()), SchemaTransformation.toLowerCase()),
  Schema.decodeTo(
    Schema.String.check(
      Schema.isMaxLength(254, { message: "must be at most 254 characters" }),
      pattern(
        /^[^\s@<>()[\]\\,;:"\u0000-\u001f\u007f]+@[^\s@<>()[\]\\,;:"\u0000-\u001f\u007f]+\.[^\s@<>()[\]\\,;:"\u0000-\u001f\u007f]+$/,
        "must be an e-mail address"
      )
    )
  ),
  Schema.annotate(emailAddressDoc)
)

/** A subscriber as administrators see it: tokens are never listed. */
export class Subscriber extends Model.Class<Subscriber>("Subscriber")({
  id: Generated(SubscriberId),
  email: Schema.String,
  verified: Schema.Boolean,
  createdAt: Model.DateTimeInsertFromDate,
  verifiedAt: Model.Field({
    select: Schema.NullOr(Schema.DateTimeUtcFromDate),
    json: Schema.NullOr(Schema.DateTimeUtcFromString)
  }),
  /** The components the subscriber is mailed about; null: every component. */
  componentIds: Schema.NullOr(Schema.Array(Schema.String)),
  /** The status page subscribed to: its mail is about what that page shows, in its name. */
  pageId: Schema.String,
  /** The language the subscription was made in, which its mail is written in. */
  locale: Locale
}) {
  /** The JSON variant, named `Subscriber.json` in the OpenAPI document. */
  static override readonly json = super.json.annotate({ identifier: "Subscriber.json" })
}

/** Tokens are URL-safe base64 of random bytes; anything else cannot match one. */
const Token = Text(200)
/** A string that could be a token; the HTML forms, which take any text, check with it before a query. */
export const isToken = Schema.is(Token)

/**
 * The public components a subscriber chooses (at most 100); absent, null or empty: every
 * component, as the page's form with no box ticked.
 */
export const SubscribedComponents = Schema.NullOr(Schema.Array(ComponentId).check(Schema.isMaxLength(100)))

export class Subscribe extends Class<Subscribe>("Subscribe")({
  email: EmailAddress,
  componentIds: Schema.optionalKey(SubscribedComponents),
  /** The slug of the page subscribed to; absent: the default page. */
  page: Schema.optionalKey(Slug),
  /** The language of the mail; absent: the page's. */
  locale: Schema.optionalKey(Locale)
}) {}

/**
 * What the preferences page shows a subscriber: the address, the components chosen (null: all),
 * and the page and language it renders in.
 */
export interface Preferences {
  readonly email: string
  readonly componentIds: ReadonlyArray<string> | null
  readonly pageId: string
  readonly locale: Locale
}

export class SubscribeAccepted extends Class<SubscribeAccepted>("SubscribeAccepted")({
  message: Schema.String
}) {}

export class Verified extends Class<Verified>("Verified")({
  verified: Schema.Literal(true),
  email: Schema.String
}) {}

export class Unsubscribe extends Class<Unsubscribe>("Unsubscribe")({
  email: EmailAddress,
  token: Token
}) {}

export class Unsubscribed extends Class<Unsubscribed>("Unsubscribed")({
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
