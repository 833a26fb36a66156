"""The composer's model, without UI: the command form and the request built from it (`commands`), the history of
submitted commands (`history`), the field types of a template's or a choice's value resolved from the package
signatures (`types`) and the typed form holding a value of them (`form`)."""
