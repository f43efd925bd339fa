export { zOrganisationReference } from "./organisation.schema";
export { organisationRepository } from "./organisation-repository";
