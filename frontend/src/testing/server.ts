import { setupServer } from "msw/node";
import { handlers } from "./handlers";
import { streamHandlers } from "./stream-handlers";
import { workspaceHandlers } from "./workspace-handlers";

export const server = setupServer(...handlers, ...workspaceHandlers, ...streamHandlers);
