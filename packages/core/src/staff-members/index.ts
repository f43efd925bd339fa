export { staffMembersRouter } from "./router";
