/**
 * The status pages one deployment serves, as views over the one public state (docs/public-page.md,
 * "Pages"): each page shows its components (every public one, or the groups and components it
 * lists), and the incidents and windows that name one of them; an item that names no public
 * component is on the default page. A page's view is made from the snapshot's state at its first
 * request and kept with it, so twenty pages cost twenty filters per change, not twenty reads.
 */
import type { PublicComponent } from "../../domain/Component.js"
import { PublicComponent as PublicComponentClass, worstStatus } from "../../domain/Component.js"
import { PublicComponentGroup } from "../../domain/ComponentGroup.js"
import { PublicIncident, PublicIncidentDetail } from "../../domain/Incident.js"
import { type Locale, negotiate } from "../../domain/Locale.js"
import { PublicMaintenance } from "../../domain/Maintenance.js"
import { StatusSummary } from "../../domain/Status.js"
import type { FooterLink, PageDefinition, PageItem } from "../../domain/StatusPage.js"
import type { PublicOrganization, PublicState } from "./PublicStatus.js"

/** Which incidents and windows a page shows, by the public components they name. */
export interface PageScope {
  /** Every public component (the page lists none of its own). */
  readonly all: boolean
  /** The page's components, when not `all`. */
  readonly componentIds: ReadonlySet<string>
  /** Items naming no public component are the default page's. */
  readonly isDefault: boolean
}

/** Whether a page of `scope` shows an item naming the public components `componentIds`. */
export const showsItem = (scope: PageScope, componentIds: ReadonlyArray<string>) =>
  componentIds.length === 0 ? scope.isDefault : scope.all || componentIds.some((id) => scope.componentIds.has(id))

/** Whether the page shows everything the public state holds (the default page listing every component). */
export const showsEverything = (scope: PageScope) => scope.all && scope.isDefault

export interface SitePage {
  readonly id: string
  readonly slug: string
  readonly isDefault: boolean
  readonly domain: string | null
  /** Readers enter a password first; never served from a shared cache. */
  readonly isProtected: boolean
  /** Changes with the password: readers' access cookies are signed over it. */
  readonly passwordTag: string | null
  readonly locale: Locale
  readonly languages: ReadonlyArray<Locale>
  readonly description: string
  readonly footerLinks: ReadonlyArray<FooterLink>
  readonly scope: PageScope
  /** The public state as this page shows it (made at the first use, then kept). */
  readonly state: () => PublicState
}

export interface Site {
  readonly pages: ReadonlyArray<SitePage>
  readonly defaultPage: SitePage
  readonly bySlug: ReadonlyMap<string, SitePage>
  /** Pages by the host name that serves them at `/`. */
  readonly byDomain: ReadonlyMap<string, SitePage>
}

/** Constructor options for values already checked: their checks are not run again. */
const trusted = { disableChecks: true } as const

/** The page the deployment serves when it has none stored: every public component, in English. */
const implicitDefault: PageDefinition["page"] = {
  id: "default",
  slug: "default",
  title: null,
  description: "",
  logoUrl: null,
  brandColor: null,
  locale: "en",
  languages: ["en"],
  timeZone: null,
  domain: null,
  audience: "public",
  isDefault: true,
  items: null,
  footerLinks: []
} as unknown as PageDefinition["page"]

/**
 * The components a page shows, in its order, each with the group the page shows it under (a
 * listed group's public members; a component listed on its own is ungrouped there), and the
 * groups. Unknown or private ids are skipped: a component made public later appears.
 */
const layout = (state: PublicState, items: ReadonlyArray<PageItem>) => {
  const byId = new Map(state.components.map((component) => [component.id, component]))
  const groupById = new Map(state.summary.groups.map((group) => [group.id, group]))
  const components: Array<PublicComponent> = []
  const groups: Array<PublicComponentGroup> = []
  const seen = new Set<string>()
  const add = (component: PublicComponent, groupId: string | null) => {
    if (seen.has(component.id)) return
    seen.add(component.id)
    components.push(
      component.groupId === groupId
        ? component
        : new PublicComponentClass({ ...component, groupId }, trusted)
    )
  }
  for (const item of items) {
    if (item.type === "component") {
      const component = byId.get(item.id)
      if (component !== undefined) add(component, null)
      continue
    }
    const group = groupById.get(item.id)
    if (group === undefined || groups.some((shown) => shown.id === group.id)) continue
    const before = components.length
    for (const id of group.componentIds) {
      const component = byId.get(id)
      if (component !== undefined) add(component, group.id)
    }
    const members = components.slice(before)
    if (members.length === 0) continue
    groups.push(
      new PublicComponentGroup({
        id: group.id,
        name: group.name,
        status: worstStatus(members.map((member) => member.status)),
        componentIds: members.map((member) => member.id)
      }, trusted)
    )
  }
  return { components, groups }
}

/** `item` naming only the page's components; the same object when it names no others. */
const narrowed = <A extends { readonly componentIds: ReadonlyArray<string> }>(
  scope: PageScope,
  item: A,
  make: (item: A, componentIds: ReadonlyArray<string>) => A
): A => {
  if (scope.all) return item
  const kept = item.componentIds.filter((id) => scope.componentIds.has(id))
  return kept.length === item.componentIds.length ? item : make(item, kept)
}

const narrowIncident = (incident: PublicIncidentDetail, componentIds: ReadonlyArray<string>) =>
  new PublicIncidentDetail({ ...incident, componentIds }, trusted)

/** An incident as a page of `scope` shows it: naming only the page's components. */
export const incidentOnPage = (scope: PageScope, incident: PublicIncidentDetail) =>
  narrowed(scope, incident, narrowIncident)
const narrowListed = (incident: PublicIncident, componentIds: ReadonlyArray<string>) =>
  new PublicIncident({ ...incident, componentIds }, trusted)
const narrowWindow = (window: PublicMaintenance, componentIds: ReadonlyArray<string>) =>
  new PublicMaintenance({ ...window, componentIds }, trusted)

/**
 * The public state as a page shows it: its components and groups, the incidents and windows it
 * shows (each naming only the page's components), the overall status of its components, and
 * the page's look (the organization's where the page sets none).
 */
export const pageState = (state: PublicState, definition: PageDefinition["page"], scope: PageScope): PublicState => {
  const organization: PublicOrganization = {
    name: definition.title ?? state.organization.name,
    logoUrl: definition.logoUrl ?? state.organization.logoUrl,
    brandColor: definition.brandColor ?? state.organization.brandColor,
    timezone: definition.timeZone ?? state.organization.timezone
  }
  if (showsEverything(scope)) {
    return { ...state, organizationName: organization.name, organization }
  }
  const { components, groups } = definition.items === null
    ? { components: state.components, groups: state.summary.groups }
    : layout(state, definition.items)
  const shows = (item: { readonly componentIds: ReadonlyArray<string> }) => showsItem(scope, item.componentIds)
  const incidents = state.incidents.filter(shows).map((incident) => narrowed(scope, incident, narrowIncident))
  const maintenance = state.maintenance.filter(shows).map((window) => narrowed(scope, window, narrowWindow))
  const summary = new StatusSummary({
    status: worstStatus(components.map((component) => component.status)),
    components,
    groups,
    activeIncidents: state.summary.activeIncidents.filter(shows).map((incident) =>
      narrowed(scope, incident, narrowListed)
    ),
    upcomingMaintenance: state.summary.upcomingMaintenance.filter(shows).map((window) =>
      narrowed(scope, window, narrowWindow)
    )
  }, trusted)
  return {
    ...state,
    organizationName: organization.name,
    organization,
    summary,
    components,
    incidents,
    barIncidents: state.barIncidents.filter(shows).map((incident) => narrowed(scope, incident, narrowListed)),
    maintenance
  }
}

/** The pages of `definitions` over `state`; a deployment without a stored default page serves an implicit one. */
export const makeSite = (state: PublicState, definitions: ReadonlyArray<PageDefinition>): Site => {
  const stored = definitions.some(({ page }) => page.isDefault)
    ? definitions
    : [{ page: implicitDefault, passwordTag: null }, ...definitions]
  const pages = stored.map(({ page, passwordTag }): SitePage => {
    const componentIds = new Set<string>()
    if (page.items !== null) {
      const groupMembers = new Map(state.summary.groups.map((group) => [group.id, group.componentIds]))
      for (const item of page.items) {
        if (item.type === "component") componentIds.add(item.id)
        else for (const id of groupMembers.get(item.id) ?? []) componentIds.add(id)
      }
    }
    const scope: PageScope = { all: page.items === null, componentIds, isDefault: page.isDefault }
    let view: PublicState | undefined
    return {
      id: page.id,
      slug: page.slug,
      isDefault: page.isDefault,
      domain: page.domain,
      isProtected: page.audience === "protected",
      passwordTag,
      locale: page.locale,
      languages: page.languages.length === 0 ? [page.locale] : page.languages,
      description: page.description,
      footerLinks: page.footerLinks,
      scope,
      state: () => (view ??= pageState(state, page, scope))
    }
  })
  const defaultPage = pages.find((page) => page.isDefault)!
  return {
    pages,
    defaultPage,
    bySlug: new Map(pages.map((page) => [page.slug, page])),
    byDomain: new Map(pages.flatMap((page) => page.domain === null ? [] : [[page.domain, page] as const]))
  }
}

/** What a request says about the page it wants and the reader's language. */
export interface Visit {
  /** From a `/p/<slug>/…` address; absent at the site's root. */
  readonly slug?: string | undefined
  /** The request's host name, lower case, without the port. */
  readonly host?: string | undefined
  /** `?lang=`. */
  readonly lang?: string | undefined
  readonly acceptLanguage?: string | undefined
}

/** A page as one request reads it: the page, the prefix of its addresses there, and the language. */
export interface Reading {
  readonly page: SitePage
  /** `""` at the site's root or on the page's own domain, `/p/<slug>` else. */
  readonly base: string
  readonly locale: Locale
  /** The language the reader chose with `?lang=`, which the page's links then carry. */
  readonly linkLocale: Locale | undefined
}

/** The host name of a `Host` header, lower case and without the port. */
export const hostName = (host: string | undefined) => {
  if (host === undefined) return undefined
  const end = host.startsWith("[") ? host.indexOf("]") + 1 : host.indexOf(":")
  return (end > 0 ? host.slice(0, end) : host).toLowerCase()
}

/**
 * The page a request reads: by slug under `/p/<slug>/`, else the page whose domain is the
 * request's host, else the default page; undefined for a slug no page has. Its language: `?lang=`
 * or `Accept-Language` among the page's languages, else the page's own.
 */
export const visiting = (site: Site, visit: Visit): Reading | undefined => {
  const page = visit.slug !== undefined
    ? site.bySlug.get(visit.slug)
    : (visit.host === undefined ? undefined : site.byDomain.get(visit.host)) ?? site.defaultPage
  if (page === undefined) return undefined
  const asked = visit.lang === undefined
    ? undefined
    : page.languages.find((locale) => locale.toLowerCase() === visit.lang!.toLowerCase())
  return {
    page,
    base: visit.slug === undefined ? "" : `/p/${page.slug}`,
    locale: negotiate(page.languages, page.locale, visit.acceptLanguage, asked),
    linkLocale: asked
  }
}

/** Whether a visit reads the default page (at the site's root, or on the default page's own domain). */
export const readsDefault = (site: Site, visit: Visit) =>
  visit.slug === undefined && (visit.host === undefined || (site.byDomain.get(visit.host)?.isDefault ?? true))
