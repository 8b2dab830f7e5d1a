/** Subscribers: who receives incident and maintenance mail about which components, and removing an address. */
import { everyItem } from "../../../../client/Pages.js"
import type { Subscriber } from "../../../../domain/Subscriber.js"
import { useCan } from "../core/access.js"
import type { Screen } from "../core/Screen.js"
import { componentNames } from "../ui/ComponentPicker.js"
import { ConfirmButton, FailureMessage, When } from "../ui/feedback.js"
import { useComponentChoices, useListScreen } from "../ui/requests.js"
import { ResourcePage, ResourceTable, useRowActions } from "../ui/resources.js"

type SubscriberJson = typeof Subscriber.json.Type

const SubscriberRow = (props: {
  readonly subscriber: SubscriberJson
  readonly components: ReturnType<typeof useComponentChoices>
  readonly onChanged: (message: string) => void
}) => {
  const { subscriber } = props
  const { failure, act } = useRowActions(props.onChanged)
  const can = useCan()
  const remove = () =>
    act((api) => api.subscribers.remove({ params: { id: subscriber.id } }), () => `${subscriber.email} was removed.`)

  return (
    <tr>
      <th scope="row">
        {subscriber.email}
        <FailureMessage failure={failure} />
      </th>
      <td>{subscriber.verified ? <When at={subscriber.verifiedAt} /> : <span class="badge">pending</span>}</td>
      <td>{subscriber.componentIds === null ? "All" : componentNames(props.components, subscriber.componentIds)}</td>
      <td>
        <When at={subscriber.createdAt} />
      </td>
      {can("subscribers.remove") && (
        <td>
          <ConfirmButton label="Remove" confirmLabel={`Remove ${subscriber.email}`} onConfirm={remove} />
        </td>
      )}
    </tr>
  )
}

const SubscribersView = () => {
  const { loaded, message, changed } = useListScreen((api) => everyItem(api.subscribers.list))
  const components = useComponentChoices()
  const can = useCan()

  return (
    <ResourcePage title="Subscribers" message={message}>
      <p class="muted">
        People subscribe on the public status page and confirm by e-mail; only confirmed addresses receive
        notifications, about the components they chose (and about updates that name no component).
      </p>
      <ResourceTable
        loaded={loaded}
        caption="Subscribers"
        columns={["E-mail", "Confirmed", "Components", "Subscribed", ...(can("subscribers.remove") ? ["Actions"] : [])]}
        empty="No subscribers yet. Readers subscribe from the status page’s Subscribe link; they show here once they confirm."
      >
        {(subscriber) => (
          <SubscriberRow key={subscriber.id} subscriber={subscriber} components={components} onChanged={changed} />
        )}
      </ResourceTable>
    </ResourcePage>
  )
}

export const SubscribersScreen: Screen = {
  path: "subscribers",
  group: "notify",
  needs: "subscribers.list",
  title: "Subscribers",
  View: SubscribersView
}
