/** Subscribers: who receives incident and maintenance mail about which components, and removing an address. */
import { useState } from "preact/hooks"

import type { Subscriber } from "../../../../domain/Subscriber.js"
import { call } from "../core/api.js"
import type { Failure } from "../core/failure.js"
import { ConfirmButton, FailureMessage, Loading, StatusMessage, Table, When } from "../ui/feedback.js"
import { useComponentChoices, useLoad } from "../ui/requests.js"
import type { Screen } from "./Screen.js"

type SubscriberJson = typeof Subscriber.json.Type

const SubscribersView = () => {
  const [loaded, reload] = useLoad((api) => api.subscribers.list())
  const components = useComponentChoices()
  const componentNames = (ids: ReadonlyArray<string>) =>
    ids.map((id) => components.find((component) => component.id === id)?.name ?? id).join(", ")
  const [message, setMessage] = useState("")
  const [failure, setFailure] = useState<Failure | null>(null)

  const remove = async (subscriber: SubscriberJson) => {
    const outcome = await call((api) => api.subscribers.remove({ params: { id: subscriber.id } }))
    setFailure(outcome.ok ? null : outcome.failure)
    if (outcome.ok) {
      setMessage(`${subscriber.email} was removed.`)
      void reload()
    }
  }

  return (
    <>
      <h1>Subscribers</h1>
      <p class="muted">
        People subscribe on the public status page and confirm by e-mail; only confirmed addresses receive
        notifications, about the components they chose (and about updates that name no component).
      </p>
      <StatusMessage text={message} />
      <FailureMessage failure={failure} />
      <Loading loaded={loaded}>
        {(subscribers) =>
          subscribers.length === 0 ? <p>No subscribers yet.</p> : (
            <Table caption="Subscribers">
              <thead>
                <tr>
                  <th scope="col">E-mail</th>
                  <th scope="col">Confirmed</th>
                  <th scope="col">Components</th>
                  <th scope="col">Subscribed</th>
                  <th scope="col">Actions</th>
                </tr>
              </thead>
              <tbody>
                {subscribers.map((subscriber) => (
                  <tr key={subscriber.id}>
                    <th scope="row">{subscriber.email}</th>
                    <td>
                      {subscriber.verified ? <When at={subscriber.verifiedAt} /> : <span class="badge">pending</span>}
                    </td>
                    <td>{subscriber.componentIds === null ? "All" : componentNames(subscriber.componentIds)}</td>
                    <td>
                      <When at={subscriber.createdAt} />
                    </td>
                    <td>
                      <ConfirmButton
                        label="Remove"
                        confirmLabel={`Remove ${subscriber.email}`}
                        onConfirm={() => remove(subscriber)}
                      />
                    </td>
                  </tr>
                ))}
              </tbody>
            </Table>
          )}
      </Loading>
    </>
  )
}

export const SubscribersScreen: Screen = { path: "subscribers", title: "Subscribers", View: SubscribersView }
