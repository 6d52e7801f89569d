import { recipeProperty } from "./property-support.js";

recipeProperty("recipe-queue-priority", [{ scenario: "recipe-queue-priority-naive" }, { canary: "no-ephemeral-cleanup" }]);
