/**
 * What every public page renders with besides its content: the page's state, where its addresses
 * live, and its language. One status page of several (docs/public-page.md) is served at the
 * site's root or under `/p/<slug>`; a reader may choose one of the page's languages with `?lang=`.
 */
import type { Locale } from "../../domain/Locale.js"
import { type Messages, messagesFor } from "../../i18n/Messages.js"
import type { PublicState } from "../state/PublicStatus.js"

export interface PageRender {
  /** The public state as this page shows it (the lead filters it to the page): state.organization is the page's effective name (title), logo, colour and time zone. */
  readonly state: PublicState
  /** Prefix of every link to the page's own addresses: "" (served at the site's root) or "/p/<slug>". */
  readonly base: string
  readonly locale: Locale
  /** The page's offered languages; with more than one, the footer links each other one. */
  readonly languages: ReadonlyArray<Locale>
  /** When set (the reader chose a language with ?lang=), internal links carry `?lang=<it>` so the choice follows the reader. */
  readonly linkLocale: Locale | undefined
  /** The page's description, shown under the banner of the status page when not empty. */
  readonly description: string
  /** Shown in the footer after our links. */
  readonly footerLinks: ReadonlyArray<{ readonly label: string; readonly url: string }>
}

/**
 * The address of one of the page's own paths (`/`, `/incidents/<id>`, `/subscribe`, …): under
 * the page's base, with the reader's chosen language when they chose one.
 */
export const href = (render: Pick<PageRender, "base" | "linkLocale">, path: string): string =>
  render.linkLocale === undefined
    ? `${render.base}${path}`
    : `${render.base}${path}${path.includes("?") ? "&" : "?"}lang=${encodeURIComponent(render.linkLocale)}`

/** The catalogue of the page's language. */
export const messagesOf = (render: Pick<PageRender, "locale">): Messages => messagesFor(render.locale)
