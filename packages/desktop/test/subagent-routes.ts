import type { RecordedRequest, ScriptedModelServer, ScriptedResponse } from "@knightcode/testkit";

/** The replies of one conversation: the first, and the one after the tools' results came back. */
export interface Route {
  first: ScriptedResponse;
  afterTools: ScriptedResponse;
}

function lastUser(request: RecordedRequest): string {
  const messages = (request.body.messages ?? []) as Array<{ role: string; content?: unknown }>;
  const user = messages.filter((m) => m.role === "user").at(-1);
  return typeof user?.content === "string" ? user.content : JSON.stringify(user?.content ?? "");
}

/**
 * Routes the scripted model by what it is asked, for parent and sub-agents
 * at once: they ask concurrently, so a queue in order cannot serve them. A
 * marker in the last user message picks the conversation; the presence of
 * tool results picks its reply. What the test enqueues still goes first.
 */
export function routeByMarker(model: ScriptedModelServer): Map<string, Route> {
  const routes = new Map<string, Route>();
  model.setFallback((request) => {
    const user = lastUser(request);
    const toolResults = ((request.body.messages ?? []) as Array<{ role: string }>).some((m) => m.role === "tool");
    for (const [marker, route] of routes) if (user.includes(marker)) return toolResults ? route.afterTools : route.first;
    return { status: 500, body: { error: { message: `no route for ${user.slice(0, 80)}` } } };
  });
  return routes;
}
