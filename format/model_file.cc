namespace tare {}
