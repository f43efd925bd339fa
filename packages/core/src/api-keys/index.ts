export { createApiKey } from "./api-keys";
