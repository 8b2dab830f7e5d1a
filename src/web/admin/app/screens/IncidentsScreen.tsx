/**
 * Incidents: opening one against components (setting their statuses with it, or as a draft to
 * publish later), posting updates to its timeline, resolving it (restoring its components),
 * reading the timeline and writing the postmortem of a resolved one. Open incidents come first;
 * those a monitor opened say whether its automation still drives them.
 */
import { Effect } from "effect"
import { useState } from "preact/hooks"

import { withIfMatch } from "../../../../client/IfMatch.js"
import { everyItem } from "../../../../client/Pages.js"
import type { Component } from "../../../../domain/Component.js"
import type { Incident, IncidentAutomation, IncidentSeverity, IncidentStatus } from "../../../../domain/Incident.js"
import { incidentStatusLabel, openIncidentStatuses, optionsOf, severityLabel } from "../../../Labels.js"
import { useCan } from "../core/access.js"
import type { ApiClient } from "../core/api.js"
import { useLiveRefresh } from "../core/live.js"
import type { Screen } from "../core/Screen.js"
import { type ComponentId, componentNames } from "../ui/ComponentPicker.js"
import {
  type ChosenStatuses,
  chosenStatusesOf,
  ComponentStatusPicker,
  statusChoices
} from "../ui/ComponentStatusPicker.js"
import { ConfirmButton, VisibilityBadge, When } from "../ui/feedback.js"
import { Checkbox, ChoiceField, Fieldset, SelectField, TextArea, TextField } from "../ui/fields.js"
import { LastChanged } from "../ui/LastChanged.js"
import { useComponentChoices, useListScreen, useSubmit } from "../ui/requests.js"
import {
  FreshEditor,
  InlineSection,
  NewSection,
  OpenButton,
  ResourceCard,
  ResourceCards,
  ResourceForm,
  ResourcePage,
  useOpenPart,
  useRowActions
} from "../ui/resources.js"
import { type TemplateJson, TemplatePicker } from "../ui/TemplatePicker.js"
import { PostmortemEditor } from "./PostmortemEditor.js"

const incidentStatuses = optionsOf(incidentStatusLabel)
const incidentSeverities = optionsOf(severityLabel)

type IncidentJson = typeof Incident.json.Type
type ComponentJson = typeof Component.json.Type
type OpenStatus = Exclude<IncidentStatus, "resolved">

const automationLabel: Record<IncidentAutomation, string> = {
  active: "automation active",
  handed_over: "handed over to operators"
}

const sameComponents = (a: ReadonlyArray<ComponentId>, b: ReadonlyArray<ComponentId>) =>
  a.length === b.length && a.every((id) => b.includes(id))

const NewIncident = (
  props: { readonly components: ReadonlyArray<ComponentJson>; readonly onCreated: (incident: IncidentJson) => void }
) => {
  const [title, setTitle] = useState("")
  const [status, setStatus] = useState<OpenStatus>("investigating")
  const [severity, setSeverity] = useState<IncidentSeverity>("minor")
  const [message, setMessage] = useState("")
  const [componentIds, setComponentIds] = useState<ReadonlyArray<ComponentId>>([])
  const [componentStatuses, setComponentStatuses] = useState<ChosenStatuses>({})
  const [draft, setDraft] = useState(false)
  const [template, setTemplate] = useState<TemplateJson | undefined>(undefined)
  const { failure, busy, submit, fieldError } = useSubmit()

  /** A template fills every field; the operator may still change them before opening. */
  const pickTemplate = (template: TemplateJson | undefined) => {
    setTemplate(template)
    if (template === undefined) return
    setTitle(template.title)
    setStatus(template.status)
    setSeverity(template.severity)
    setMessage(template.message)
    setComponentIds(template.componentIds)
  }

  const save = async () => {
    // The template has filled in the form already, and the form sends every field. With the
    // template's components unchanged it sends the template's id instead of them: the incident then
    // takes the template's visibility, which its remaining components alone may not tell.
    const templateComponents = template !== undefined && sameComponents(componentIds, template.componentIds)
    const chosen = chosenStatusesOf(componentStatuses, componentIds)
    const payload = {
      title: title.trim(),
      status,
      severity,
      message: message.trim(),
      ...(templateComponents ? { templateId: template.id } : { componentIds }),
      // Only the chosen components' statuses: unticking a component drops its status.
      ...(chosen === undefined ? {} : { componentStatuses: chosen }),
      published: !draft
    }
    const outcome = await submit((api) => api.incidents.create({ payload }))
    if (outcome.ok) {
      setTitle("")
      setMessage("")
      setComponentIds([])
      setComponentStatuses({})
      setDraft(false)
      setTemplate(undefined)
      props.onCreated(outcome.value)
    }
  }

  return (
    <ResourceForm id="new-incident" failure={failure} busy={busy} submitLabel="Open incident" onSubmit={save}>
      <TemplatePicker id="incident-template" value={template?.id ?? ""} onPick={pickTemplate} />
      <TextField
        id="incident-title"
        label="Title"
        required
        value={title}
        onInput={setTitle}
        error={fieldError("title")}
      />
      <SelectField
        id="incident-status"
        label="Status"
        value={status}
        options={openIncidentStatuses}
        onChange={setStatus}
        error={fieldError("status")}
      />
      <SelectField
        id="incident-severity"
        label="Severity"
        value={severity}
        options={incidentSeverities}
        onChange={setSeverity}
        error={fieldError("severity")}
      />
      <TextArea
        id="incident-message"
        label="Message"
        hint="What people see first on the status page and in the notification."
        value={message}
        onInput={setMessage}
        error={fieldError("message")}
      />
      <ComponentStatusPicker
        id="incident-affects"
        legend="Affected components"
        components={props.components}
        selected={componentIds}
        onChange={setComponentIds}
        statuses={componentStatuses}
        onStatusesChange={setComponentStatuses}
        error={fieldError("componentIds")}
        statusesError={fieldError("componentStatuses")}
      />
      <Checkbox
        id="incident-draft"
        label="Draft (publish later)"
        hint="A draft stays in the dashboard: no status page, subscriber or webhook hears of it until you publish it. Component statuses are set at once."
        checked={draft}
        onChange={setDraft}
        error={fieldError("published")}
      />
    </ResourceForm>
  )
}

/**
 * Posting an update on an incident, opened in place: its status, its message, the affected
 * components' statuses. Give it the incident read afresh inside a `FreshEditor`, so that an update
 * someone else posted meanwhile refuses this one and the form offers theirs.
 */
export const PostUpdate = (
  props: {
    readonly incident: IncidentJson
    /** The ETag the incident was read with: an update posted by someone else meanwhile refuses this one. */
    readonly etag: string | undefined
    readonly components: ReadonlyArray<ComponentJson>
    readonly onPosted: (incident: IncidentJson) => void
    readonly onCancel: () => void
  }
) => {
  const { incident } = props
  const [status, setStatus] = useState<IncidentStatus>(incident.status)
  const [message, setMessage] = useState("")
  const [componentStatuses, setComponentStatuses] = useState<ChosenStatuses>({})
  const [restoreComponents, setRestoreComponents] = useState(false)
  const { failure, busy, submit, fieldError } = useSubmit()
  const id = `update-${incident.id}`
  const resolving = status === "resolved"

  const save = async () => {
    const chosen = chosenStatusesOf(componentStatuses, incident.componentIds)
    const payload = {
      status,
      message: message.trim(),
      ...(chosen === undefined ? {} : { componentStatuses: chosen }),
      // The API takes restoreComponents only with status resolved.
      ...(resolving && restoreComponents ? { restoreComponents: true } : {})
    }
    const outcome = await submit((api) =>
      api.incidents.addUpdate({ params: { id: incident.id }, payload }).pipe(withIfMatch(props.etag))
    )
    if (outcome.ok) props.onPosted(outcome.value)
  }

  return (
    <InlineSection id={id} title={`Update on ${incident.title}`}>
      <ResourceForm
        id={id}
        failure={failure}
        busy={busy}
        submitLabel="Post update"
        onSubmit={save}
        onCancel={props.onCancel}
      >
        <ChoiceField
          id={`${id}-status`}
          label="Status"
          hint="Choosing Resolved resolves the incident."
          value={status}
          options={incidentStatuses}
          onChange={setStatus}
          error={fieldError("status")}
        />
        <TextArea
          id={`${id}-message`}
          label="Message"
          value={message}
          onInput={setMessage}
          error={fieldError("message")}
        />
        {incident.componentIds.length > 0 && (
          <Fieldset legend="Component statuses">
            {incident.componentIds.map((componentId) => {
              const component = props.components.find((c) => c.id === componentId)
              return (
                <SelectField
                  key={componentId}
                  id={`${id}-component-${componentId}`}
                  label={`Set ${component?.name ?? componentId} to`}
                  value={componentStatuses[componentId] ?? ""}
                  options={statusChoices}
                  onChange={(chosen) => {
                    const { [componentId]: _previous, ...others } = componentStatuses
                    setComponentStatuses(chosen === "" ? others : { ...others, [componentId]: chosen })
                  }}
                />
              )
            })}
            {fieldError("componentStatuses") && <p class="field-error">{fieldError("componentStatuses")}</p>}
          </Fieldset>
        )}
        {resolving && incident.componentIds.length > 0 && (
          <Checkbox
            id={`${id}-restore`}
            label="Restore components"
            hint="Each component goes back to operational, or to what its monitors find; one in maintenance stays so."
            checked={restoreComponents}
            onChange={setRestoreComponents}
            error={fieldError("restoreComponents")}
          />
        )}
      </ResourceForm>
    </InlineSection>
  )
}

/** The timeline, oldest first, as the public page shows it. */
const Timeline = ({ incident }: { readonly incident: IncidentJson }) => (
  <ol class="timeline" aria-label={`Timeline of ${incident.title}`}>
    {incident.updates.map((update) => (
      <li key={update.id}>
        <strong>{incidentStatusLabel[update.status]}</strong> · <When at={update.createdAt} />
        <p class="small">{update.message}</p>
      </li>
    ))}
  </ol>
)

const IncidentCard = (props: {
  readonly incident: IncidentJson
  readonly components: ReadonlyArray<ComponentJson>
  readonly onChanged: (message: string) => void
}) => {
  const { incident } = props
  const posting = useOpenPart(props.onChanged)
  const timeline = useOpenPart(props.onChanged)
  const postmortem = useOpenPart(props.onChanged)
  const [restoreComponents, setRestoreComponents] = useState(false)
  const { failure, act } = useRowActions(props.onChanged)
  const can = useCan()
  const open = incident.status !== "resolved"
  const read = (api: ApiClient) =>
    api.incidents.get({ params: { id: incident.id }, responseMode: "decoded-and-response" })

  const resolve = () =>
    act(
      (api) =>
        api.incidents.resolve({
          params: { id: incident.id },
          payload: restoreComponents ? { restoreComponents } : null
        }),
      () => `${incident.title} was resolved.`
    )
  const publish = () =>
    act((api) => api.incidents.publish({ params: { id: incident.id } }), () => `${incident.title} was published.`)

  return (
    <ResourceCard
      id={`incident-${incident.id}`}
      title={incident.title}
      status={{ text: incidentStatusLabel[incident.status], tone: open ? "bad" : "ok" }}
      badges={
        <>
          <span class="badge">{severityLabel[incident.severity]}</span>
          {incident.published
            ? <VisibilityBadge isPublic={incident.isPublic} />
            : <span class="badge draft">Draft</span>}
        </>
      }
      failure={failure}
      actions={
        <>
          <OpenButton
            open={timeline.open}
            onToggle={timeline.toggle}
            label="Timeline"
            hidden={`of ${incident.title}`}
          />
          {!incident.published && can("incidents.publish") && (
            <button type="button" onClick={publish}>
              Publish<span class="visually-hidden">{` ${incident.title}`}</span>
            </button>
          )}
          {open && can("incidents.addUpdate") && (
            <OpenButton
              open={posting.open}
              onToggle={posting.toggle}
              label="Post update"
              hidden={`on ${incident.title}`}
            />
          )}
          {open && can("incidents.resolve") && (
            <div class="card-action-group">
              <ConfirmButton label="Resolve" confirmLabel={`Resolve ${incident.title}`} onConfirm={resolve} />
              {incident.componentIds.length > 0 && (
                <Checkbox
                  id={`restore-${incident.id}`}
                  label="Restore components"
                  checked={restoreComponents}
                  onChange={setRestoreComponents}
                />
              )}
            </div>
          )}
          {!open && can("incidents.setPostmortem") && (
            <OpenButton
              open={postmortem.open}
              onToggle={postmortem.toggle}
              label={incident.postmortem ? "Edit postmortem" : "Write postmortem"}
              hidden={`of ${incident.title}`}
            />
          )}
        </>
      }
      opened={
        <>
          {(timeline.open || posting.open) && (
            // Read again whenever the incident changes.
            <LastChanged
              key={incident.updatedAt.epochMilliseconds}
              targetType="incident"
              targetId={incident.id}
            />
          )}
          {timeline.open && <Timeline incident={incident} />}
          {posting.open && (
            <FreshEditor read={read}>
              {(fresh, etag) => (
                <PostUpdate
                  incident={fresh}
                  etag={etag}
                  components={props.components}
                  onCancel={posting.close}
                  onPosted={(updated) => posting.done(`The update on ${updated.title} was posted.`)}
                />
              )}
            </FreshEditor>
          )}
          {postmortem.open && (
            <FreshEditor read={read}>
              {(fresh, etag) => (
                <PostmortemEditor
                  incident={fresh}
                  etag={etag}
                  onCancel={postmortem.close}
                  onSaved={(saved) =>
                    postmortem.done(
                      `The postmortem of ${saved.title} was ${
                        saved.postmortem?.published ? "published" : "saved as a draft"
                      }.`
                    )}
                />
              )}
            </FreshEditor>
          )}
        </>
      }
    >
      <p class="small muted">
        Affects {componentNames(props.components, incident.componentIds)} · opened <When at={incident.createdAt} />
        {incident.resolvedAt && (
          <>
            {" · resolved "}
            <When at={incident.resolvedAt} />
          </>
        )}
      </p>
      {incident.source === "monitor" && (
        <p class="small">
          Opened by monitor{incident.automation !== null && ` · ${automationLabel[incident.automation]}`}
        </p>
      )}
      <p class="small">{incident.message}</p>
    </ResourceCard>
  )
}

// Not components: their statuses change with every monitor transition, which an incident's card
// does not show (it names its components only).
const liveKinds = ["incidents"] as const

const IncidentsView = () => {
  // Open incidents first.
  const { loaded, message, changed, refresh } = useListScreen((api) =>
    Effect.map(
      everyItem(api.incidents.list),
      (incidents) => incidents.toSorted((a, b) => Number(a.status === "resolved") - Number(b.status === "resolved"))
    )
  )
  // Changes made elsewhere (another operator, a monitor, the maintenance clock) show as they happen.
  useLiveRefresh(liveKinds, refresh)
  const componentList = useComponentChoices()
  const can = useCan()

  return (
    <ResourcePage title="Incidents" message={message}>
      <ResourceCards
        loaded={loaded}
        label="Incidents"
        empty={can("incidents.create")
          ? "No incidents yet. When something breaks, open one below (or press n anywhere)."
          : "No incidents yet."}
      >
        {(incident) => (
          <IncidentCard key={incident.id} incident={incident} components={componentList} onChanged={changed} />
        )}
      </ResourceCards>
      {can("incidents.create") && (
        <NewSection id="new-incident" title="New incident">
          <NewIncident components={componentList} onCreated={(incident) => changed(`${incident.title} was opened.`)} />
        </NewSection>
      )}
    </ResourcePage>
  )
}

export const IncidentsScreen: Screen = {
  path: "incidents",
  group: "now",
  needs: "incidents.list",
  title: "Incidents",
  View: IncidentsView
}
