/**
 * Components: the list with a quick status change per row, creating, editing and deleting, and
 * the group each is shown under.
 */
import { useState } from "preact/hooks"

import { withIfMatch } from "../../../../client/IfMatch.js"
import { everyItem } from "../../../../client/Pages.js"
import type { Component, ComponentStatus } from "../../../../domain/Component.js"
import type { ComponentGroup } from "../../../../domain/ComponentGroup.js"
import { componentStatusLabel, optionsOf } from "../../../Labels.js"
import { useCan } from "../core/access.js"
import type { Screen } from "../core/Screen.js"
import { ConfirmButton, FailureMessage } from "../ui/feedback.js"
import { Checkbox, SelectField, TextArea, TextField } from "../ui/fields.js"
import { useListScreen, useLoad, useSubmit } from "../ui/requests.js"
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

const componentStatuses = optionsOf(componentStatusLabel)

type ComponentJson = typeof Component.json.Type
type GroupJson = typeof ComponentGroup.json.Type

const ComponentForm = (props: ResourceFormProps<ComponentJson> & { readonly groups: ReadonlyArray<GroupJson> }) => {
  const [name, setName] = useState(props.initial?.name ?? "")
  const [description, setDescription] = useState(props.initial?.description ?? "")
  const [status, setStatus] = useState<ComponentStatus>(props.initial?.status ?? "operational")
  const [isPublic, setPublic] = useState(props.initial?.isPublic ?? true)
  const [groupId, setGroupId] = useState(props.initial?.groupId ?? "")
  const { failure, busy, submit, fieldError } = useSubmit()

  const save = async () => {
    const payload = { name: name.trim(), description, status, isPublic, groupId: groupId === "" ? null : groupId }
    const initial = props.initial
    const outcome = await submit((api) =>
      initial
        ? api.components.update({ params: { id: initial.id }, payload }).pipe(withIfMatch(props.etag))
        : api.components.create({ payload })
    )
    if (outcome.ok) {
      if (!initial) {
        setName("")
        setDescription("")
      }
      props.onSaved(outcome.value)
    }
  }

  return (
    <ResourceForm {...props} failure={failure} busy={busy} onSubmit={save}>
      <TextField
        id={`${props.id}-name`}
        label="Name"
        required
        value={name}
        onInput={setName}
        error={fieldError("name")}
      />
      <TextArea
        id={`${props.id}-description`}
        label="Description"
        value={description}
        onInput={setDescription}
        error={fieldError("description")}
      />
      <SelectField
        id={`${props.id}-status`}
        label="Status"
        value={status}
        options={componentStatuses}
        onChange={setStatus}
        error={fieldError("status")}
      />
      {(props.groups.length > 0 || groupId !== "") && (
        <SelectField
          id={`${props.id}-group`}
          label="Group"
          hint="The public page shows it under this group."
          value={groupId}
          options={[
            { value: "", label: "None" },
            ...props.groups.map((group) => ({ value: group.id, label: group.name }))
          ]}
          onChange={setGroupId}
          error={fieldError("groupId")}
        />
      )}
      <Checkbox
        id={`${props.id}-public`}
        label="Shown on the public status page"
        checked={isPublic}
        onChange={setPublic}
        error={fieldError("isPublic")}
      />
    </ResourceForm>
  )
}

const ComponentRow = (props: {
  readonly component: ComponentJson
  readonly groups: ReadonlyArray<GroupJson>
  readonly onChanged: (message: string) => void
  readonly reload: () => void
  /** Whether the role may edit or delete components: the Actions column is left out otherwise. */
  readonly actions: boolean
}) => {
  const { component } = props
  const editor = useOpenPart(props.onChanged)
  const { failure, act } = useRowActions(props.onChanged)
  const can = useCan()
  const group = props.groups.find((candidate) => candidate.id === component.groupId)

  const changeStatus = async (status: ComponentStatus) => {
    const outcome = await act(
      (api) => api.components.setStatus({ params: { id: component.id }, payload: { status } }),
      () => `${component.name} is now ${componentStatusLabel[status].toLowerCase()}.`
    )
    // On failure the menu shows a status the server did not take: show the stored one again.
    if (!outcome.ok) props.reload()
  }
  const remove = () =>
    act((api) => api.components.remove({ params: { id: component.id } }), () => `${component.name} was deleted.`)

  return (
    <tr>
      <th scope="row">
        {component.name}
        {!component.isPublic && <span class="badge">private</span>}
        {group && <p class="muted small">In {group.name}</p>}
        {component.description && <p class="muted small">{component.description}</p>}
        {editor.open && (
          <InlineSection id={`edit-${component.id}`} title={`Edit ${component.name}`}>
            <FreshEditor
              read={(api) => api.components.get({ params: { id: component.id }, responseMode: "decoded-and-response" })}
            >
              {(fresh, etag) => (
                <ComponentForm
                  id={`edit-${component.id}`}
                  initial={fresh}
                  etag={etag}
                  groups={props.groups}
                  submitLabel="Save"
                  onCancel={editor.close}
                  onSaved={(saved) => editor.done(`${saved.name} was saved.`)}
                />
              )}
            </FreshEditor>
          </InlineSection>
        )}
      </th>
      <td>
        {can("components.setStatus")
          ? (
            <select
              aria-label={`Status of ${component.name}`}
              class={`status status-${component.status}`}
              value={component.status}
              onChange={(event) => changeStatus(event.currentTarget.value as ComponentStatus)}
            >
              {componentStatuses.map((option) => <option key={option.value} value={option.value}>{option.label}
              </option>)}
            </select>
          )
          : <span class={`status status-${component.status}`}>{componentStatusLabel[component.status]}</span>}
        <FailureMessage failure={failure} />
      </td>
      {props.actions && (
        <td class="row-actions">
          {can("components.update") && (
            <OpenButton open={editor.open} onToggle={editor.toggle} label="Edit" hidden={component.name} />
          )}
          {can("components.remove") && (
            <ConfirmButton label="Delete" confirmLabel={`Delete ${component.name}`} onConfirm={remove} />
          )}
        </td>
      )}
    </tr>
  )
}

const ComponentsView = () => {
  const { loaded, reload, message, changed } = useListScreen((api) => everyItem(api.components.list))
  const [loadedGroups] = useLoad((api) => everyItem(api.componentGroups.list))
  const groups = loadedGroups.state === "ready" ? loadedGroups.value : []
  const can = useCan()
  const actions = can("components.update") || can("components.remove")

  return (
    <ResourcePage title="Components" message={message}>
      <ResourceTable
        loaded={loaded}
        caption="Components"
        columns={["Component", "Status", ...(actions ? ["Actions"] : [])]}
        empty={can("components.create") ? "No components yet. Create the first one below." : "No components yet."}
      >
        {(component) => (
          <ComponentRow
            key={component.id}
            component={component}
            groups={groups}
            onChanged={changed}
            reload={reload}
            actions={actions}
          />
        )}
      </ResourceTable>
      {can("components.create") && (
        <NewSection id="new-component" title="New component">
          <ComponentForm
            id="new-component"
            groups={groups}
            submitLabel="Create component"
            onSaved={(created) => changed(`${created.name} was created.`)}
          />
        </NewSection>
      )}
    </ResourcePage>
  )
}

export const ComponentsScreen: Screen = {
  path: "components",
  group: "setup",
  needs: "components.list",
  title: "Components",
  View: ComponentsView
}
