/**
 * The public pages' content, from the public state alone (the snapshot and the daily uptime
 * buckets): the status page, an incident's timeline, a maintenance window, the paged history, and
 * the answers of the subscription forms and e-mail links.
 */
import type { PublicComponent } from "../../domain/Component.js"
import type { PublicComponentGroup } from "../../domain/ComponentGroup.js"
import type { PublicIncident, PublicIncidentDetail } from "../../domain/Incident.js"
import type { PublicMaintenance } from "../../domain/Maintenance.js"
import {
  componentStatusLabel,
  incidentStatusLabel,
  maintenanceStatusLabel,
  overallLabel,
  severityLabel,
  statusMark
} from "../../web/Labels.js"
import type { PublicState } from "../state/PublicStatus.js"
import { html, Raw } from "./Html.js"
import { type RenderedPage, renderPage } from "./Layout.js"
import { renderMarkdown } from "./Markdown.js"
import { type TimeFormatter, timeFormatter } from "./Times.js"

export const historyPageSize = 20
const recentHistory = 5

/**
 * What the subscribe form shows: nothing yet, a refusal of the address or of the components
 * (with what was entered), or the outcome.
 */
export type SubscribeForm =
  | { readonly _tag: "Empty" }
  | {
    readonly _tag: "Invalid"
    readonly field: "email" | "componentIds"
    readonly email: string
    readonly componentIds: ReadonlyArray<string>
    readonly error: string
  }
  | { readonly _tag: "Done"; readonly message: string; readonly ok: boolean }

/**
 * A checkbox per public component, named `componentIds` like the API's field, `checked` ticked;
 * none ticked means every component. With `error`, the group is marked invalid and says why.
 */
/**
 * The component checkboxes of the subscribe and preferences forms: each public group under its
 * name, with an "All of" box (`groupIds`, read as its components at the time of the request),
 * then the ungrouped components.
 */
const componentChoices = (
  components: ReadonlyArray<PublicComponent>,
  groups: ReadonlyArray<PublicComponentGroup>,
  checked: ReadonlyArray<string>,
  options: { readonly legend: string; readonly error?: string | undefined }
) => {
  const ticked = new Set(checked)
  const byId = new Map(components.map((component) => [component.id, component]))
  const grouped = new Set(groups.flatMap((group) => group.componentIds))
  const box = (component: PublicComponent) =>
    html`<li><input type="checkbox" id="component-${component.id}" name="componentIds" value="${component.id}"${
      ticked.has(component.id) ? " checked" : ""
    }> <label for="component-${component.id}">${component.name}</label></li>`
  return html`<fieldset class="choices" aria-describedby="components-hint${
    options.error ? " components-error" : ""
  }"><legend>${options.legend}</legend><p id="components-hint" class="small">Tick none to hear about every component.</p>${
    options.error && html`<p id="components-error" class="error">${options.error}</p>`
  }<ul class="plain">${
    groups.map((group) =>
      html`<li><fieldset class="choices"><legend>${group.name}</legend><ul class="plain"><li><input type="checkbox" id="group-${group.id}" name="groupIds" value="${group.id}"> <label for="group-${group.id}">All of ${group.name}</label></li>${
        group.componentIds.flatMap((id) => byId.get(id) ?? []).map(box)
      }</ul></fieldset></li>`
    )
  }${components.filter((component) => !grouped.has(component.id)).map(box)}</ul></fieldset>`
}

const incidentSummary = (incident: PublicIncident | PublicIncidentDetail, time: TimeFormatter) => {
  const latest = "updates" in incident ? incident.updates.at(-1) : undefined
  return html`<li class="card"><div class="row"><h3><a href="/incidents/${
    encodeURIComponent(incident.id)
  }">${incident.title}</a></h3><span class="st">${incidentStatusLabel[incident.status]}</span></div><p>${
    latest?.message ?? incident.message
  }</p><p class="small">${latest ? "Updated" : "Posted"} ${time(latest?.createdAt ?? incident.updatedAt)}</p></li>`
}

const maintenancePath = (window: PublicMaintenance) => `/maintenance/${encodeURIComponent(window.id)}`

const maintenanceItem = (
  window: PublicMaintenance,
  names: (ids: ReadonlyArray<string>) => string,
  time: TimeFormatter
) =>
  html`<li class="card"><div class="row"><h3><a href="${
    maintenancePath(window)
  }">${window.title}</a></h3><span class="st maintenance">${maintenanceStatusLabel[window.status]}</span></div>${
    window.description && html`<p>${window.description}</p>`
  }<p class="small">${time(window.scheduledStart)} to ${time(window.scheduledEnd)}${
    window.componentIds.length > 0 && ` · ${names(window.componentIds)}`
  }</p></li>`

const subscribeSection = (
  form: SubscribeForm,
  components: ReadonlyArray<PublicComponent>,
  groups: ReadonlyArray<PublicComponentGroup>
) => {
  const invalid = form._tag === "Invalid" && form.field === "email"
  return html`<section aria-labelledby="subscribe-title"><h2 id="subscribe-title">Get updates by e-mail</h2>${
    form._tag === "Done" &&
    html`<p class="notice${form.ok ? "" : " bad"}" role="${form.ok ? "status" : "alert"}">${form.message}</p>`
  }<form class="subscribe" method="post" action="/subscribe" novalidate><div class="field"><label for="email">E-mail address</label><input id="email" name="email" type="email" autocomplete="email" required value="${
    form._tag === "Invalid" ? form.email : ""
  }"${invalid ? html` aria-invalid="true" aria-describedby="email-error"` : ""}>${
    invalid && html`<p id="email-error" class="error">${form.error}</p>`
  }</div>${
    components.length > 0 &&
    componentChoices(components, groups, form._tag === "Invalid" ? form.componentIds : [], {
      legend: "Components",
      error: form._tag === "Invalid" && form.field === "componentIds" ? form.error : undefined
    })
  }<button type="submit">Subscribe</button></form><p class="small">We send a confirmation link first. Or follow the <a href="/api/v1/status/rss">RSS</a> or <a href="/api/v1/status/atom">Atom</a> feed.</p></section>`
}

/** What the status page shows under a component (its uptime bar and chart) and under a group (its bar). */
export interface StatusSections {
  readonly component: (component: PublicComponent) => Raw
  readonly group: (group: PublicComponentGroup) => Raw
}

const statusLine = (status: PublicComponent["status"]) =>
  html`<span class="st ${status}"><span class="mark" aria-hidden="true">${statusMark[status]}</span> ${
    componentStatusLabel[status]
  }</span>`

const componentItem = (component: PublicComponent, sections: StatusSections, heading: "h3" | "h4") =>
  html`<li class="card"><div class="row">${
    heading === "h3" ? html`<h3>${component.name}</h3>` : html`<h4>${component.name}</h4>`
  }${statusLine(component.status)}</div>${
    component.description && html`<p class="small">${component.description}</p>`
  }${sections.component(component)}</li>`

/**
 * A group: its worst status and bar, and its components behind a `details` that opens without
 * script. Its components' headings are a level below its own.
 */
const groupItem = (
  group: PublicComponentGroup,
  members: ReadonlyArray<PublicComponent>,
  sections: StatusSections
) =>
  html`<li class="card group"><div class="row"><h3>${group.name}</h3>${statusLine(group.status)}</div>${
    sections.group(group)
  }<details><summary>${members.length} ${
    members.length === 1 ? "component" : "components"
  }<span class="vh"> of ${group.name}</span></summary><ul class="plain members">${
    members.map((component) => componentItem(component, sections, "h4"))
  }</ul></details></li>`

/**
 * The status page; `sections` draws the uptime bars (UptimeBar.ts). Groups come first in their
 * order, then the ungrouped components in theirs.
 */
export const statusPage = (
  state: PublicState,
  sections: StatusSections,
  form: SubscribeForm
): RenderedPage => {
  const { organization, summary } = state
  const time = timeFormatter(organization.timezone)
  const nameOf = new Map(state.components.map((component) => [component.id, component.name]))
  const names = (ids: ReadonlyArray<string>) => ids.map((id) => nameOf.get(id) ?? id).join(", ")
  const past = state.incidents.filter((incident) => incident.status === "resolved").slice(0, recentHistory)

  const body: Raw =
    html`<section class="banner ${summary.status}" aria-labelledby="overall"><span class="mark" aria-hidden="true">${
      statusMark[summary.status]
    }</span><h1 id="overall">${overallLabel[summary.status]}</h1></section>
${
      summary.activeIncidents.length > 0 &&
      html`<section aria-labelledby="active-title"><h2 id="active-title">Active incidents</h2><ul class="plain">${
        summary.activeIncidents.map((active) =>
          incidentSummary(state.incidents.find((i) => i.id === active.id) ?? active, time)
        )
      }</ul></section>`
    }
${
      summary.upcomingMaintenance.length > 0 &&
      html`<section aria-labelledby="maintenance-title"><h2 id="maintenance-title">Maintenance</h2><ul class="plain">${
        summary.upcomingMaintenance.map((window) => maintenanceItem(window, names, time))
      }</ul></section>`
    }
<section aria-labelledby="components-title"><h2 id="components-title">Components</h2>${
      state.components.length === 0
        ? html`<p>No components are listed yet.</p>`
        : html`<ul class="plain">${
          summary.groups.map((group) =>
            groupItem(
              group,
              state.components.filter((component) => component.groupId === group.id),
              sections
            )
          )
        }${
          state.components.filter((component) => component.groupId === null).map((component) =>
            componentItem(component, sections, "h3")
          )
        }</ul>`
    }</section>
<section aria-labelledby="history-title"><h2 id="history-title">Recent history</h2>${
      past.length === 0
        ? html`<p>No incidents reported recently.</p>`
        : html`<ul class="plain">${past.map((incident) => incidentSummary(incident, time))}</ul>`
    }<p><a href="/history">All past incidents</a></p></section>
${subscribeSection(form, state.components, state.summary.groups)}`
  return renderPage({ organization, title: `${organization.name} status`, body })
}

export const incidentPage = (state: PublicState, incident: PublicIncidentDetail): RenderedPage => {
  const time = timeFormatter(state.organization.timezone)
  const nameOf = new Map(state.components.map((component) => [component.id, component.name]))
  const body = html`<p><a href="/">Back to the current status</a></p><h1>${incident.title}</h1><p><span class="st">${
    incidentStatusLabel[incident.status]
  }</span> · ${severityLabel[incident.severity]}${
    incident.componentIds.length > 0 &&
    ` · affects ${incident.componentIds.map((id) => nameOf.get(id) ?? id).join(", ")}`
  }</p><p class="small">Opened ${time(incident.createdAt)}${
    incident.resolvedAt && html` · resolved ${time(incident.resolvedAt)}`
  }</p>
<h2>Updates</h2><ol class="timeline" reversed>${
    incident.updates.toReversed().map((update) =>
      html`<li><p><strong>${incidentStatusLabel[update.status]}</strong> · ${
        time(update.createdAt)
      }</p><p>${update.message}</p></li>`
    )
  }</ol>${
    incident.postmortem &&
    html`<section class="postmortem" aria-labelledby="postmortem-title"><h2 id="postmortem-title">Postmortem</h2><p class="small">Published ${
      time(incident.postmortem.publishedAt)
    }</p>${new Raw(renderMarkdown(incident.postmortem.body, { headingOffset: 2 }))}</section>`
  }`
  return renderPage({
    organization: state.organization,
    title: `${incident.title} · ${state.organization.name} status`,
    body
  })
}

/** A window's page, which the feeds link to: its state, times, description and public components. */
export const maintenancePage = (state: PublicState, window: PublicMaintenance): RenderedPage => {
  const time = timeFormatter(state.organization.timezone)
  const nameOf = new Map(state.components.map((component) => [component.id, component.name]))
  const body =
    html`<p><a href="/">Back to the current status</a></p><h1>${window.title}</h1><p><span class="st maintenance">${
      maintenanceStatusLabel[window.status]
    }</span> · Planned maintenance${
      window.componentIds.length > 0 && ` · affects ${window.componentIds.map((id) => nameOf.get(id) ?? id).join(", ")}`
    }</p><p class="small">From ${time(window.scheduledStart)} to ${time(window.scheduledEnd)}</p>${
      window.description && html`<h2>Details</h2><p>${window.description}</p>`
    }`
  return renderPage({
    organization: state.organization,
    title: `${window.title} · ${state.organization.name} status`,
    body
  })
}

/** The number of history pages of `incidents` incidents. */
/**
 * The address of history page `page`: a path, not a query, so the static mirror can hold every
 * page as an object of its own (`?page=N` still answers, for links made before).
 */
export const historyPath = (page: number) => page === 1 ? "/history" : `/history/${page}`

export const historyPages = (incidents: number) => Math.max(1, Math.ceil(incidents / historyPageSize))

/** Page `page` (from 1) of `pages` of past and present incidents, newest first, showing `shown` (that page's incidents). */
export const historyPage = (
  state: PublicState,
  page: number,
  pages: number,
  shown: ReadonlyArray<PublicIncidentDetail>
): RenderedPage => {
  const time = timeFormatter(state.organization.timezone)
  const body = html`<p><a href="/">Back to the current status</a></p><h1>Incident history</h1>${
    shown.length === 0
      ? html`<p>No incidents have been reported.</p>`
      : html`<ul class="plain">${shown.map((incident) => incidentSummary(incident, time))}</ul>`
  }<nav aria-label="History pages"><p class="row">${
    page > 1 ? html`<a href="${historyPath(page - 1)}" rel="prev">Newer incidents</a>` : html`<span></span>`
  }<span>Page ${page} of ${pages}</span>${
    page < pages ? html`<a href="${historyPath(page + 1)}" rel="next">Older incidents</a>` : html`<span></span>`
  }</p></nav>`
  return renderPage({
    organization: state.organization,
    title: `Incident history · ${state.organization.name} status`,
    body
  })
}

/** A page that answers a form or an e-mail link: a heading, what happened, and optionally a form. */
export const messagePage = (
  state: PublicState,
  options: { readonly title: string; readonly message: string; readonly ok: boolean; readonly extra?: Raw }
) =>
  renderPage({
    organization: state.organization,
    title: `${options.title} · ${state.organization.name} status`,
    body: html`<h1>${options.title}</h1><p class="notice${options.ok ? "" : " bad"}" role="${
      options.ok ? "status" : "alert"
    }">${options.message}</p>${options.extra}<p><a href="/">Back to the current status</a></p>`
  })

/** The page a confirmation link opens: one button, so a link scanner that follows it confirms nobody. */
export const confirmSubscriptionForm = (token: string) =>
  html`<form method="post" action="/subscribe/verify"><input type="hidden" name="token" value="${token}"><button type="submit">Confirm subscription</button></form>`

/** The page an unsubscribe link opens: one button, so a link scanner that follows it changes nothing. */
export const unsubscribeForm = (email: string, token: string) =>
  html`<form method="post" action="/unsubscribe"><input type="hidden" name="email" value="${email}"><input type="hidden" name="token" value="${token}"><button type="submit">Unsubscribe ${email}</button></form>`

/** What the preferences page says above its form: nothing, a saved choice, or a refused one. */
export type PreferencesNotice =
  | { readonly _tag: "None" }
  | { readonly _tag: "Saved"; readonly message: string }
  | { readonly _tag: "Invalid"; readonly error: string }

/**
 * The preferences page of a subscriber mail's link: the components to hear about, ticked as
 * chosen, and unsubscribing. Both are forms that post, so a link scanner that follows the link
 * changes nothing; the address and token travel as hidden fields.
 */
export const preferencesPage = (
  state: PublicState,
  options: {
    readonly email: string
    readonly token: string
    readonly componentIds: ReadonlyArray<string> | null
    readonly notice: PreferencesNotice
  }
) => {
  const { email, notice, token } = options
  const pair =
    html`<input type="hidden" name="email" value="${email}"><input type="hidden" name="token" value="${token}">`
  const body = html`<h1>Your subscription</h1>${
    notice._tag === "Saved" && html`<p class="notice" role="status">${notice.message}</p>`
  }<p>Incident and maintenance updates go to <strong>${email}</strong>.</p>${
    // A choice whose components were all deleted or hidden since: not "every component".
    notice._tag !== "Invalid" && options.componentIds !== null &&
    !options.componentIds.some((id) => state.components.some((component) => component.id === id)) &&
    html`<p class="notice">None of the components you chose is listed any more: you hear only about updates that name no component. Tick some, or save with none ticked to hear about every one.</p>`}${
    state.components.length === 0
      ? html`<p>No components are listed: you hear about every update.</p>`
      : html`<form method="post" action="/subscription" aria-labelledby="choose-title"><h2 id="choose-title">Choose what you hear about</h2>${pair}${
        componentChoices(state.components, state.summary.groups, options.componentIds ?? [], {
          legend: "Components",
          error: notice._tag === "Invalid" ? notice.error : undefined
        })
      }<p class="small">An update that names no component reaches every subscriber.</p><button type="submit" name="action" value="save">Save choices</button></form>`
  }<form method="post" action="/subscription" aria-labelledby="stop-title"><h2 id="stop-title">Stop all updates</h2>${pair}<button type="submit" name="action" value="unsubscribe">Unsubscribe ${email}</button></form><p><a href="/">Back to the current status</a></p>`
  return renderPage({
    organization: state.organization,
    title: `Your subscription · ${state.organization.name} status`,
    body
  })
}
