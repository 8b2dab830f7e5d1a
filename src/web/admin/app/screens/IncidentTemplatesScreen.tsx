/**
 * Incident templates: prepared title, message, severity, status and components that the
 * incidents screen's "Template" menu fills its form from. Listing, creating, editing, deleting.
 */
import { useState } from "preact/hooks"

import { withIfMatch } from "../../../../client/IfMatch.js"
import { everyItem } from "../../../../client/Pages.js"
import type { IncidentSeverity, IncidentStatus } from "../../../../domain/Incident.js"
import type { IncidentTemplate } from "../../../../domain/IncidentTemplate.js"
import { openIncidentStatuses, optionsOf, severityLabel } from "../../../Labels.js"
import { useCan } from "../core/access.js"
import type { Screen } from "../core/Screen.js"
import { type ComponentId, componentNames, ComponentPicker } from "../ui/ComponentPicker.js"
import { ConfirmButton, FailureMessage, VisibilityBadge } from "../ui/feedback.js"
import { SelectField, TextArea, TextField } from "../ui/fields.js"
import { useComponentChoices, useListScreen, useSubmit } from "../ui/requests.js"
import {
  FreshEditor,
  InlineSection,
  NewSection,
  OpenButton,
  ResourceForm,
  type ResourceFormProps,
  ResourcePage,
  ResourceTable,
  useOpenPart,
  useRowActions
} from "../ui/resources.js"

const incidentSeverities = optionsOf(severityLabel)

type TemplateJson = typeof IncidentTemplate.json.Type
type ComponentJson = ReturnType<typeof useComponentChoices>[number]
type OpenStatus = Exclude<IncidentStatus, "resolved">

const TemplateForm = (
  props: ResourceFormProps<TemplateJson> & { readonly components: ReadonlyArray<ComponentJson> }
) => {
  const [name, setName] = useState(props.initial?.name ?? "")
  const [title, setTitle] = useState(props.initial?.title ?? "")
  const [status, setStatus] = useState<OpenStatus>(props.initial?.status ?? "investigating")
  const [severity, setSeverity] = useState<IncidentSeverity>(props.initial?.severity ?? "minor")
  const [message, setMessage] = useState(props.initial?.message ?? "")
  const [componentIds, setComponentIds] = useState<ReadonlyArray<ComponentId>>(props.initial?.componentIds ?? [])
  const { failure, busy, submit, fieldError } = useSubmit()

  const save = async () => {
    const payload = { name: name.trim(), title: title.trim(), status, severity, message: message.trim(), componentIds }
    const initial = props.initial
    const outcome = await submit((api) =>
      initial
        ? api.incidentTemplates.update({ params: { id: initial.id }, payload }).pipe(withIfMatch(props.etag))
        : api.incidentTemplates.create({ payload })
    )
    if (outcome.ok) {
      if (!initial) {
        setName("")
        setTitle("")
        setMessage("")
        setComponentIds([])
      }
      props.onSaved(outcome.value)
    }
  }

  return (
    <ResourceForm {...props} failure={failure} busy={busy} onSubmit={save}>
      <TextField
        id={`${props.id}-name`}
        label="Template name"
        hint="What the incidents screen offers; unique."
        required
        value={name}
        onInput={setName}
        error={fieldError("name")}
      />
      <TextField
        id={`${props.id}-incident-title`}
        label="Incident title"
        required
        value={title}
        onInput={setTitle}
        error={fieldError("title")}
      />
      <SelectField
        id={`${props.id}-status`}
        label="Status"
        value={status}
        options={openIncidentStatuses}
        onChange={setStatus}
        error={fieldError("status")}
      />
      <SelectField
        id={`${props.id}-severity`}
        label="Severity"
        value={severity}
        options={incidentSeverities}
        onChange={setSeverity}
        error={fieldError("severity")}
      />
      <TextArea
        id={`${props.id}-message`}
        label="Message"
        value={message}
        onInput={setMessage}
        error={fieldError("message")}
      />
      <ComponentPicker
        id={`${props.id}-affects`}
        legend="Affected components"
        components={props.components}
        selected={componentIds}
        onChange={setComponentIds}
        error={fieldError("componentIds")}
      />
    </ResourceForm>
  )
}

const TemplateRow = (props: {
  readonly template: TemplateJson
  readonly components: ReadonlyArray<ComponentJson>
  readonly onChanged: (message: string) => void
}) => {
  const { template } = props
  const editor = useOpenPart(props.onChanged)
  const { failure, act } = useRowActions(props.onChanged)
  const can = useCan()

  const remove = () =>
    act(
      (api) => api.incidentTemplates.remove({ params: { id: template.id } }),
      () => `The template ${template.name} was deleted.`
    )

  return (
    <tr>
      <th scope="row">
        {template.name}
        <span class="badge">{severityLabel[template.severity]}</span>
        <VisibilityBadge isPublic={template.isPublic} />
        <p class="small">{template.title}</p>
        <p class="small muted">Affects {componentNames(props.components, template.componentIds)}</p>
        <FailureMessage failure={failure} />
        {editor.open && (
          <InlineSection id={`edit-template-${template.id}`} title={`Edit ${template.name}`}>
            <FreshEditor
              read={(api) =>
                api.incidentTemplates.get({ params: { id: template.id }, responseMode: "decoded-and-response" })}
            >
              {(fresh, etag) => (
                <TemplateForm
                  id={`edit-template-${template.id}`}
                  initial={fresh}
                  etag={etag}
                  components={props.components}
                  submitLabel="Save"
                  onCancel={editor.close}
                  onSaved={(saved) => editor.done(`The template ${saved.name} was saved.`)}
                />
              )}
            </FreshEditor>
          </InlineSection>
        )}
      </th>
      {(can("incidentTemplates.update") || can("incidentTemplates.remove")) && (
        <td class="row-actions">
          {can("incidentTemplates.update") && (
            <OpenButton open={editor.open} onToggle={editor.toggle} label="Edit" hidden={template.name} />
          )}
          {can("incidentTemplates.remove") && (
            <ConfirmButton label="Delete" confirmLabel={`Delete ${template.name}`} onConfirm={remove} />
          )}
        </td>
      )}
    </tr>
  )
}

const IncidentTemplatesView = () => {
  const { loaded, message, changed } = useListScreen((api) => everyItem(api.incidentTemplates.list))
  const componentList = useComponentChoices()
  const can = useCan()
  const actions = can("incidentTemplates.update") || can("incidentTemplates.remove")

  return (
    <ResourcePage title="Incident templates" message={message}>
      <ResourceTable
        loaded={loaded}
        caption="Incident templates"
        columns={["Template", ...(actions ? ["Actions"] : [])]}
        empty={can("incidentTemplates.create") ? "No templates yet. Create one below." : "No templates yet."}
      >
        {(template) => (
          <TemplateRow key={template.id} template={template} components={componentList} onChanged={changed} />
        )}
      </ResourceTable>
      {can("incidentTemplates.create") && (
        <NewSection id="new-template" title="New template">
          <TemplateForm
            id="new-template"
            components={componentList}
            submitLabel="Create template"
            onSaved={(created) => changed(`The template ${created.name} was created.`)}
          />
        </NewSection>
      )}
    </ResourcePage>
  )
}

export const IncidentTemplatesScreen: Screen = {
  path: "incident-templates",
  group: "setup",
  needs: "incidentTemplates.list",
  title: "Incident templates",
  View: IncidentTemplatesView
}
