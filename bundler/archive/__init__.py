"""Bundle archives: the encrypted streaming writer, the hostile-proof reader, sealing."""
