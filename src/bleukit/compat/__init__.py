"""Other BLEUs, reproduced exactly from bleukit's statistics (see the README section "Other BLEUs")."""
