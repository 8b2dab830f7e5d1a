/**
 * Component groups: the headings the public page shows components under. Listing, creating,
 * editing, deleting; components join a group from the components screen.
 */
import { useState } from "preact/hooks"

import { withIfMatch } from "../../../../client/IfMatch.js"
import { everyItem } from "../../../../client/Pages.js"
import type { ComponentGroup } from "../../../../domain/ComponentGroup.js"
import { useCan } from "../core/access.js"
import type { Screen } from "../core/Screen.js"
import { ConfirmButton, FailureMessage } from "../ui/feedback.js"
import { Checkbox, TextArea, TextField } from "../ui/fields.js"
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

type GroupJson = typeof ComponentGroup.json.Type
type ComponentJson = ReturnType<typeof useComponentChoices>[number]

const GroupForm = (props: ResourceFormProps<GroupJson>) => {
  const [name, setName] = useState(props.initial?.name ?? "")
  const [description, setDescription] = useState(props.initial?.description ?? "")
  const [isPublic, setPublic] = useState(props.initial?.isPublic ?? true)
  const { failure, busy, submit, fieldError } = useSubmit()

  const save = async () => {
    const payload = { name: name.trim(), description, isPublic }
    const initial = props.initial
    const outcome = await submit((api) =>
      initial
        ? api.componentGroups.update({ params: { id: initial.id }, payload }).pipe(withIfMatch(props.etag))
        : api.componentGroups.create({ payload })
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
      <Checkbox
        id={`${props.id}-public`}
        label="Shown on the public status page"
        hint="A private group is not shown; its public components appear ungrouped."
        checked={isPublic}
        onChange={setPublic}
        error={fieldError("isPublic")}
      />
    </ResourceForm>
  )
}

const GroupRow = (props: {
  readonly group: GroupJson
  readonly components: ReadonlyArray<ComponentJson>
  readonly onChanged: (message: string) => void
}) => {
  const { group } = props
  const editor = useOpenPart(props.onChanged)
  const { failure, act } = useRowActions(props.onChanged)
  const can = useCan()
  const members = props.components.filter((component) => component.groupId === group.id)

  const remove = () =>
    act(
      (api) => api.componentGroups.remove({ params: { id: group.id } }),
      () => `The group ${group.name} was deleted; its components are ungrouped.`
    )

  return (
    <tr>
      <th scope="row">
        {group.name}
        {!group.isPublic && <span class="badge">private</span>}
        {group.description && <p class="muted small">{group.description}</p>}
        <FailureMessage failure={failure} />
        {editor.open && (
          <InlineSection id={`edit-group-${group.id}`} title={`Edit ${group.name}`}>
            <FreshEditor
              read={(api) =>
                api.componentGroups.get({ params: { id: group.id }, responseMode: "decoded-and-response" })}
            >
              {(fresh, etag) => (
                <GroupForm
                  id={`edit-group-${group.id}`}
                  initial={fresh}
                  etag={etag}
                  submitLabel="Save"
                  onCancel={editor.close}
                  onSaved={(saved) => editor.done(`The group ${saved.name} was saved.`)}
                />
              )}
            </FreshEditor>
          </InlineSection>
        )}
      </th>
      <td>{members.length === 0 ? "None" : members.map((component) => component.name).join(", ")}</td>
      {(can("componentGroups.update") || can("componentGroups.remove")) && (
        <td class="row-actions">
          {can("componentGroups.update") && (
            <OpenButton open={editor.open} onToggle={editor.toggle} label="Edit" hidden={group.name} />
          )}
          {can("componentGroups.remove") && (
            <ConfirmButton label="Delete" confirmLabel={`Delete ${group.name}`} onConfirm={remove} />
          )}
        </td>
      )}
    </tr>
  )
}

const ComponentGroupsView = () => {
  const { loaded, message, changed } = useListScreen((api) => everyItem(api.componentGroups.list))
  const components = useComponentChoices()
  const can = useCan()
  const actions = can("componentGroups.update") || can("componentGroups.remove")

  return (
    <ResourcePage title="Component groups" message={message}>
      <p class="muted">
        The public page shows a group with the worst status of its components. Put a component in a group from the
        Components screen.
      </p>
      <ResourceTable
        loaded={loaded}
        caption="Component groups"
        columns={["Group", "Components", ...(actions ? ["Actions"] : [])]}
        empty={can("componentGroups.create") ? "No groups yet. Create one below." : "No groups yet."}
      >
        {(group) => <GroupRow key={group.id} group={group} components={components} onChanged={changed} />}
      </ResourceTable>
      {can("componentGroups.create") && (
        <NewSection id="new-group" title="New group">
          <GroupForm
            id="new-group"
            submitLabel="Create group"
            onSaved={(created) => changed(`The group ${created.name} was created.`)}
          />
        </NewSection>
      )}
    </ResourcePage>
  )
}

export const ComponentGroupsScreen: Screen = {
  path: "component-groups",
  group: "setup",
  needs: "componentGroups.list",
  title: "Component groups",
  View: ComponentGroupsView
}
