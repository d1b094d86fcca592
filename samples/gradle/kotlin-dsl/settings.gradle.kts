rootProject.name = "komorium-sample-app"
