import { recipeProperty } from "./property-support.js";

recipeProperty("recipe-services", [{ canary: "no-ephemeral-cleanup" }]);
