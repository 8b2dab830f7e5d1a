/**
 * A status page: an address, a look and the components it shows, over the one public catalogue
 * (docs/public-page.md, "Pages"). `title`, `logoUrl`, `brandColor` and `timeZone` left null take
 * the organization's.
 */
import { Schema } from "effect"

import { HttpUrl, Id, IdString, Name, pattern, Text } from "./Fields.js"
import { Locale } from "./Locale.js"
import { Class } from "./Named.js"
import { BrandColor, TimeZone } from "./Organization.js"

export const StatusPageId = Id("StatusPageId")
export type StatusPageId = typeof StatusPageId.Type

/** Lower-case letters, digits and inner hyphens, 1–64 characters: the page's `/p/<slug>/`. */
export const Slug = Schema.String.check(
  pattern(
    /^[a-z0-9]([a-z0-9-]{0,62}[a-z0-9])?$/,
    "must be 1-64 lower-case letters, digits and hyphens, starting and ending with a letter or digit"
  )
).annotate({ identifier: "Slug", examples: ["customers"] })

/**
 * A host name as the `Host` header carries it, lower case, without a port. The length is checked
 * apart, not by a lookahead: the pattern is in the OpenAPI document, for generators that lack them.
 */
export const DomainName = Schema.String.check(
  Schema.isMaxLength(253, { message: "must be at most 253 characters" }),
  pattern(
    /^([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]([a-z0-9-]{0,61}[a-z0-9])?$/,
    "must be a lower-case host name such as status.example.com, without a scheme or port"
  )
).annotate({ identifier: "DomainName", examples: ["status.example.com"] })

export const Audience = Schema.Literals(["public", "protected"]).annotate({
  identifier: "Audience",
  description: "`public`: anyone reads the page. `protected`: readers enter the page's password first."
})
export type Audience = typeof Audience.Type

/** One entry of a page's layout: a component, or a group (its public components, in their order). */
export const PageItem = Schema.Struct({
  type: Schema.Literals(["component", "group"]),
  id: IdString
}).annotate({ identifier: "PageItem" })
export type PageItem = typeof PageItem.Type

export const FooterLink = Schema.Struct({ label: Name(100), url: HttpUrl }).annotate({ identifier: "FooterLink" })
export type FooterLink = typeof FooterLink.Type

export const PageTitle = Name(200)
export const PageDescription = Text(2000)
/** A protected page's password, as the operator sets it. */
export const PagePassword = Schema.String.check(
  Schema.isMinLength(8, { message: "must be at least 8 characters" }),
  Schema.isMaxLength(200, { message: "must be at most 200 characters" })
)

const maxItems = 500
const maxFooterLinks = 10

const Items = Schema.NullOr(
  Schema.Array(PageItem).check(Schema.isMaxLength(maxItems, { message: `must hold at most ${maxItems} items` }))
)
const FooterLinks = Schema.Array(FooterLink).check(
  Schema.isMaxLength(maxFooterLinks, { message: `must hold at most ${maxFooterLinks} links` })
)
const Languages = Schema.Array(Locale).check(Schema.isMinLength(1), Schema.isMaxLength(7))

/** A page as the admin API answers it; its password never leaves the server. */
export class StatusPage extends Class<StatusPage>("StatusPage")({
  id: StatusPageId,
  slug: Slug,
  title: Schema.NullOr(Schema.String),
  description: Schema.String,
  logoUrl: Schema.NullOr(Schema.String),
  brandColor: Schema.NullOr(Schema.String),
  locale: Locale,
  languages: Schema.Array(Locale),
  timeZone: Schema.NullOr(Schema.String),
  domain: Schema.NullOr(Schema.String),
  audience: Audience,
  isDefault: Schema.Boolean,
  /** Null: every public component, grouped as the catalogue groups them. */
  items: Schema.NullOr(Schema.Array(PageItem)),
  footerLinks: Schema.Array(FooterLink),
  createdAt: Schema.DateTimeUtcFromString,
  updatedAt: Schema.DateTimeUtcFromString
}) {}

/** Body of POST /admin/pages: only the slug is required. */
export class CreateStatusPage extends Class<CreateStatusPage>("CreateStatusPage")({
  slug: Slug,
  title: Schema.optionalKey(Schema.NullOr(PageTitle)),
  description: Schema.optionalKey(PageDescription),
  logoUrl: Schema.optionalKey(Schema.NullOr(HttpUrl)),
  brandColor: Schema.optionalKey(Schema.NullOr(BrandColor)),
  locale: Schema.optionalKey(Locale),
  languages: Schema.optionalKey(Languages),
  timeZone: Schema.optionalKey(Schema.NullOr(TimeZone)),
  domain: Schema.optionalKey(Schema.NullOr(DomainName)),
  audience: Schema.optionalKey(Audience),
  password: Schema.optionalKey(PagePassword),
  isDefault: Schema.optionalKey(Schema.Boolean),
  items: Schema.optionalKey(Items),
  footerLinks: Schema.optionalKey(FooterLinks)
}) {}

/** Body of PUT /admin/pages/:id: a partial update. */
export class UpdateStatusPage extends Class<UpdateStatusPage>("UpdateStatusPage")({
  slug: Schema.optionalKey(Slug),
  title: Schema.optionalKey(Schema.NullOr(PageTitle)),
  description: Schema.optionalKey(PageDescription),
  logoUrl: Schema.optionalKey(Schema.NullOr(HttpUrl)),
  brandColor: Schema.optionalKey(Schema.NullOr(BrandColor)),
  locale: Schema.optionalKey(Locale),
  languages: Schema.optionalKey(Languages),
  timeZone: Schema.optionalKey(Schema.NullOr(TimeZone)),
  domain: Schema.optionalKey(Schema.NullOr(DomainName)),
  audience: Schema.optionalKey(Audience),
  password: Schema.optionalKey(PagePassword),
  isDefault: Schema.optionalKey(Schema.Boolean),
  items: Schema.optionalKey(Items),
  footerLinks: Schema.optionalKey(FooterLinks)
}) {}

/**
 * What the public side needs of a page (PublicStatus reads every page with the catalogue): the
 * API's view plus whether it is protected, and a tag of its password (the readers' cookies are
 * signed over it, so a new password ends every reader's access).
 */
export interface PageDefinition {
  readonly page: StatusPage
  /** Null for a public page. */
  readonly passwordTag: string | null
}

/**
 * Where readers find a page, as links in mail and on the page name it: the default page at
 * `publicUrl`, a page with a domain at that host (with `publicUrl`'s scheme), any other at
 * `publicUrl/p/<slug>`. `publicUrl` has no trailing slash (AppConfig).
 */
export const pageAddress = (
  publicUrl: string,
  page: { readonly isDefault: boolean; readonly domain: string | null; readonly slug: string }
): string =>
  page.isDefault
    ? publicUrl
    : page.domain !== null
    ? `${new URL(publicUrl).protocol}//${page.domain}`
    : `${publicUrl}/p/${page.slug}`
