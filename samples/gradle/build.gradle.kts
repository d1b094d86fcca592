// komorium-ts from a Gradle build: `gradle komoriumReport` builds build/libs/app.jar, instruments
// it into build/libs/app-komorium.jar, runs that on the workload (writing build/komorium/app.kprof)
// and prints the report. Not run by the test suite: Gradle is not installed here (see README.md).
plugins {
    java
}

// The workload is samples/maven's: one program for both samples.
sourceSets {
    main {
        java.setSrcDirs(listOf("../maven/src/main/java"))
    }
}

tasks.withType<JavaCompile>().configureEach {
    options.release.set(11)
}

tasks.jar {
    archiveFileName.set("app.jar")
    manifest {
        attributes("Main-Class" to "com.example.workload.Main")
    }
}

// komorium-ts's output bytes depend only on its input: keep the jar reproducible too.
tasks.withType<AbstractArchiveTask>().configureEach {
    isPreserveFileTimestamps = false
    isReproducibleFileOrder = true
}

// The komorium-ts executable: on the PATH after `npm install -g komorium-ts`, or give a path:
// gradle komoriumReport -Pkomorium.cmd=node_modules/.bin/komorium-ts
val komoriumCmd = providers.gradleProperty("komorium.cmd").getOrElse("komorium-ts")
val appJar = tasks.jar.flatMap { it.archiveFile }
val instrumentedJar = layout.buildDirectory.file("libs/app-komorium.jar")
val profile = layout.buildDirectory.file("komorium/app.kprof")

val komoriumInstrument = tasks.register<Exec>("komoriumInstrument") {
    group = "komorium"
    description = "Instruments app.jar with komorium-ts so that it profiles itself."
    dependsOn(tasks.jar)
    inputs.file(appJar)
    outputs.file(instrumentedJar)
    commandLine(komoriumCmd, "instrument", appJar.get().asFile, "-o", instrumentedJar.get().asFile)
}

val komoriumProfile = tasks.register<Exec>("komoriumProfile") {
    group = "komorium"
    description = "Runs the instrumented jar on the workload; writes build/komorium/app.kprof (the runtime creates the folder)."
    dependsOn(komoriumInstrument)
    inputs.file(instrumentedJar)
    outputs.file(profile)
    commandLine("java", "-Dkomorium.out=${profile.get().asFile}", "-jar", instrumentedJar.get().asFile, "200000")
}

tasks.register<Exec>("komoriumReport") {
    group = "komorium"
    description = "Prints the hottest methods and call paths of the profile."
    dependsOn(komoriumProfile)
    commandLine(komoriumCmd, "report", profile.get().asFile, "--top", "10")
}
