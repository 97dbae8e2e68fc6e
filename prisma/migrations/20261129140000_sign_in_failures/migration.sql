-- CreateTable: wrong passwords per username within the lockout window, shared by every server process.
CREATE TABLE "SignInFailure" (
    "id" TEXT NOT NULL,
    "username" TEXT NOT NULL,
    "at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "SignInFailure_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "SignInFailure_username_at_idx" ON "SignInFailure"("username", "at");

-- CreateIndex
CREATE INDEX "SignInFailure_at_idx" ON "SignInFailure"("at");
