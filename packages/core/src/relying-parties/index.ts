export { relyingPartiesRouter } from "./router";
