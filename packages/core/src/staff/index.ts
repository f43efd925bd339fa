export { assertStaffRole } from "./require-role";
export { createStaffUser } from "./staff-auth";
