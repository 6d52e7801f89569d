import { recipeProperty } from "./property-support.js";

recipeProperty("recipe-rw-lock", [{ canary: "no-ephemeral-cleanup" }]);
