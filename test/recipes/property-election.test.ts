import { recipeProperty } from "./property-support.js";

recipeProperty("recipe-election", [{ canary: "no-ephemeral-cleanup" }]);
